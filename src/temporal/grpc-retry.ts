import {
  InterceptingCall,
  ListenerBuilder,
  RequesterBuilder,
  type Interceptor,
  type StatusObject,
} from '@grpc/grpc-js';
import { defaultGrpcRetryOptions, type GrpcRetryOptions } from '@temporalio/client';

/**
 * Temporal's gRPC retry (same backoff, same retryable codes) that stops when its call is
 * cancelled. The client's own interceptor keeps its retry timer after a cancel: the caller is
 * told CANCELLED at once (an abandoned start, `withAbortSignal`), but the timer still fires
 * and dials again, on a connection that by then may be closed ("Channel has been shut down",
 * thrown from a timer: an uncaught exception in whoever closed it). Here a cancel clears the
 * timer, and a retry that finds the channel closed ends with the last status it saw.
 *
 * @example
 * Connection.connect({ address, interceptors: [cancellableGrpcRetry()] })
 */
export function cancellableGrpcRetry(
  options: GrpcRetryOptions = defaultGrpcRetryOptions(),
): Interceptor {
  return (callOptions, nextCall) => {
    let sent: unknown;
    let received: unknown;
    let deliverMessage: ((message: unknown) => void) | undefined;
    let deliverStatus: ((status: StatusObject) => void) | undefined;
    let timer: NodeJS.Timeout | undefined;
    let last: StatusObject | undefined;
    let cancelled = false;
    let ended = false;

    const end = (status: StatusObject): void => {
      if (ended) return;
      ended = true;
      deliverMessage?.(received);
      deliverStatus?.(status);
    };

    const requester = new RequesterBuilder()
      .withStart((metadata, _listener, next) => {
        let attempt = 1;
        const onStatus = (status: StatusObject): void => {
          last = status;
          if (!cancelled && options.retryableDecider(attempt, status)) {
            timer = setTimeout(retry, options.delayFunction(attempt, status));
          } else end(status);
        };
        const retry = (): void => {
          timer = undefined;
          if (cancelled) return;
          attempt++;
          let call;
          try {
            call = nextCall(callOptions);
          } catch {
            // The connection was closed while this call waited to retry.
            end(last!);
            return;
          }
          call.start(metadata, {
            onReceiveMessage: (message: unknown) => (received = message),
            onReceiveStatus: onStatus,
          });
          call.sendMessage(sent);
          call.halfClose();
        };
        const listener = new ListenerBuilder()
          .withOnReceiveMessage((message, nextMessage) => {
            received = message;
            deliverMessage = nextMessage;
          })
          .withOnReceiveStatus((status, nextStatus) => {
            deliverStatus = nextStatus;
            onStatus(status);
          })
          .build();
        next(metadata, listener);
      })
      .withSendMessage((message, next) => {
        sent = message;
        next(message);
      })
      .withCancel((next) => {
        cancelled = true;
        const waiting = timer !== undefined;
        clearTimeout(timer);
        timer = undefined;
        next();
        // Between attempts nothing is in flight to answer the cancel: the caller hears the
        // last status the server gave (a real one: grpc-js mishandles hand-made statuses).
        if (waiting && last) end(last);
      })
      .build();
    return new InterceptingCall(nextCall(callOptions), requester);
  };
}
