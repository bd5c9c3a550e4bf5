import { randomUUID } from 'node:crypto';
import type pg from 'pg';

export interface Email {
  id: string;
  idempotencyKey: string;
  orderId: string | null;
  to: string;
  subject: string;
  body: string;
  createdAt: string;
}

interface EmailRow {
  id: string;
  idempotency_key: string;
  order_id: string | null;
  to_address: string;
  subject: string;
  body: string;
  created_at: Date;
}

const COLUMNS = 'id, idempotency_key, order_id, to_address, subject, body, created_at';

function toEmail(r: EmailRow): Email {
  return {
    id: r.id,
    idempotencyKey: r.idempotency_key,
    orderId: r.order_id,
    to: r.to_address,
    subject: r.subject,
    body: r.body,
    createdAt: r.created_at.toISOString(),
  };
}

/** Records an accepted email in the caller's transaction (not unique per key: migration 0006). */
export async function insertEmail(
  client: pg.PoolClient,
  input: Omit<Email, 'id' | 'createdAt'>,
): Promise<Email> {
  const { rows } = await client.query<EmailRow>(
    `INSERT INTO provider_emails (id, idempotency_key, order_id, to_address, subject, body)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [
      `em_${randomUUID()}`,
      input.idempotencyKey,
      input.orderId,
      input.to,
      input.subject,
      input.body,
    ],
  );
  return toEmail(rows[0]!);
}

export async function findEmailById(db: pg.Pool, id: string): Promise<Email | undefined> {
  const { rows } = await db.query<EmailRow>(
    `SELECT ${COLUMNS} FROM provider_emails WHERE id = $1`,
    [id],
  );
  return rows[0] && toEmail(rows[0]);
}

export async function listEmailsByOrder(db: pg.Pool, orderId: string): Promise<Email[]> {
  const { rows } = await db.query<EmailRow>(
    `SELECT ${COLUMNS} FROM provider_emails WHERE order_id = $1 ORDER BY created_at, id`,
    [orderId],
  );
  return rows.map(toEmail);
}

export async function listEmailsByKey(db: pg.Pool | pg.PoolClient, key: string): Promise<Email[]> {
  const { rows } = await db.query<EmailRow>(
    `SELECT ${COLUMNS} FROM provider_emails WHERE idempotency_key = $1`,
    [key],
  );
  return rows.map(toEmail);
}
