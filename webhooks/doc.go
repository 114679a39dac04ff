// Package webhooks sends organizations' webhook deliveries: the job
// handler that posts each delivery of the store's outbox to its endpoint,
// signed as the Standard Webhooks convention says (webhook-id,
// webhook-timestamp, webhook-signature: HMAC-SHA256 with the endpoint's
// whsec_ secret), retried with backoff for 24 hours; the check of an
// endpoint's URL; and the making of secrets.
//
// An endpoint is a tenant's input that makes the server send requests, so
// by default no request reaches a loopback, private, link-local or
// otherwise non-public address: the URL is checked when the webhook is
// created, and every connection's address is checked again when it is
// made (a name that resolves inward, or is rebound to, is refused), unless
// the operator allows private targets (serve --webhook-allow-private).
package webhooks
