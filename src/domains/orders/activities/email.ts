import { postToProvider, type ProviderClientOptions } from '../../../activities/provider-http';

export interface SendEmailInput {
  /** Idempotency key derived by the workflow (`order:<orderId>:email`). */
  key: string;
  orderId: string;
  to: string;
  subject: string;
  body: string;
}

export interface SendEmailResult {
  emailId: string;
}

/** Mail activities over the provider's HTTP API (a SendGrid client would replace this). */
export function createEmailActivities(options: ProviderClientOptions) {
  return {
    async sendEmail(input: SendEmailInput): Promise<SendEmailResult> {
      const { body } = await postToProvider(options, {
        path: '/v1/emails',
        key: input.key,
        body: { to: input.to, subject: input.subject, body: input.body, orderId: input.orderId },
      });
      return { emailId: String(body.id) };
    },
  };
}
