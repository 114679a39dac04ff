package webhooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"lectern.dev/lectern"
	"lectern.dev/lectern/secrets"
	"lectern.dev/lectern/store"
)

// Schedule is the wait after each failed attempt before the next (the
// last repeats); Window is how long after its event a delivery is tried:
// one whose next attempt would fall later fails. Attempts come at about
// 0, 5 s, 5 min, 35 min, 2 h 35, 7 h 35 and 17 h 35 after the event: seven,
// the next (27 h 35) past the window.
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour}

// Window bounds the retries of a delivery.
const Window = 24 * time.Hour

// Timeout bounds one attempt, from connecting to the endpoint's answer.
const Timeout = 15 * time.Second

// SecretContext is the context a webhook's secret is sealed under with the
// server's secret key (secrets.Key.Seal).
func SecretContext(webhookID string) string { return "webhook-secret:" + webhookID }

// Deliverer is the job handler of webhook deliveries (store.KindWebhook).
type Deliverer struct {
	Log   *slog.Logger
	Store store.Store
	// Key opens the endpoints' secrets.
	Key *secrets.Key
	// Client sends the deliveries; default Client(Timeout, false).
	Client *http.Client
	// Schedule and Window override the package's (tests).
	Schedule []time.Duration
	Window   time.Duration
}

// Run makes one attempt of the delivery named by the job and records it,
// with the next attempt's time or the delivery's end.
func (d *Deliverer) Run(ctx context.Context, job *store.Job, lease store.Lease) error {
	dl, err := d.Store.GetDelivery(ctx, job.ID)
	if err != nil {
		return err
	}
	if dl.Status != lectern.DeliveryPending {
		return nil // ended by another worker, or canceled with its webhook
	}
	w, err := d.Store.GetWebhook(ctx, dl.WebhookID)
	if lectern.ErrorCode(err) == lectern.ENOTFOUND {
		return nil // deleted: its deliveries are canceled
	}
	if err != nil {
		return err
	}
	if d.Key == nil {
		return lectern.Errorf(lectern.EUNAVAILABLE, "webhook deliveries need the server's secret key")
	}
	secret, err := d.Key.Open(w.Secret, SecretContext(w.ID))
	if err != nil {
		return d.end(ctx, lease, "the endpoint's secret cannot be opened with this server's secret key")
	}
	wh, err := standardwebhooks.NewWebhook(string(secret))
	if err != nil {
		return d.end(ctx, lease, "the endpoint's secret is not a whsec_ secret")
	}
	a := d.attempt(ctx, wh, w.URL, dl)
	if ctx.Err() != nil {
		return ctx.Err() // stopping or the lease lost: the attempt is not recorded, the job given back
	}
	var next time.Time
	if a.StatusCode < 200 || a.StatusCode > 299 {
		next = d.next(dl, a.At)
	}
	if next.IsZero() {
		d.Log.Info("webhook delivery ended", "delivery", dl.ID, "webhook", w.ID, "event", dl.Event, "status", a.StatusCode, "attempts", len(dl.Attempts)+1)
	} else {
		d.Log.Warn("webhook delivery attempt failed; retrying", "delivery", dl.ID, "webhook", w.ID, "status", a.StatusCode, "err", a.Error,
			"retry_at", next.Format(time.RFC3339))
	}
	return d.Store.RecordAttempt(ctx, lease, a, next)
}

// attempt posts the delivery once.
func (d *Deliverer) attempt(ctx context.Context, wh *standardwebhooks.Webhook, target string, dl *lectern.Delivery) lectern.DeliveryAttempt {
	now := time.Now().UTC().Truncate(time.Microsecond)
	a := lectern.DeliveryAttempt{At: now}
	sig, err := wh.Sign(dl.ID, now, dl.Payload)
	if err != nil {
		a.Error = "signing failed: " + err.Error()
		return a
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(dl.Payload))
	if err != nil {
		a.Error = "the URL cannot be requested"
		return a
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "Lectern-Webhooks/1")
	h.Set(standardwebhooks.HeaderWebhookID, dl.ID)
	h.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(standardwebhooks.HeaderWebhookSignature, sig)
	c := d.Client
	if c == nil {
		c = Client(Timeout, false)
	}
	start := time.Now()
	resp, err := c.Do(req)
	a.DurationMS = time.Since(start).Milliseconds()
	if err != nil {
		a.Error = reason(err)
		if ctx.Err() == nil {
			d.Log.Info("webhook delivery attempt failed", "delivery", dl.ID, "err", err) // the details, for the operator
		}
		return a
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	a.StatusCode = resp.StatusCode
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		a.Error = fmt.Sprintf("the endpoint answered %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	return a
}

// next returns when the delivery's next attempt is due after a failed
// one at at, or zero when the window is over.
func (d *Deliverer) next(dl *lectern.Delivery, at time.Time) time.Time {
	sched, window := d.Schedule, d.Window
	if len(sched) == 0 {
		sched = Schedule
	}
	if window <= 0 {
		window = Window
	}
	wait := sched[min(len(dl.Attempts), len(sched)-1)]
	if n := at.Add(wait); n.Sub(dl.CreatedAt) <= window {
		return n
	}
	return time.Time{}
}

// end records a last, failed attempt that could not be made.
func (d *Deliverer) end(ctx context.Context, lease store.Lease, why string) error {
	return d.Store.RecordAttempt(ctx, lease, lectern.DeliveryAttempt{At: time.Now().UTC().Truncate(time.Microsecond), Error: why}, time.Time{})
}

// Fail records the delivery as failed for good.
func (d *Deliverer) Fail(ctx context.Context, job *store.Job, lease store.Lease, err error) error {
	return d.end(ctx, lease, "the delivery could not be made: "+lectern.ErrorMessage(err))
}

// reason describes a failed request for the tenant's attempt record in
// general terms: never an address the endpoint's name resolved to, nor
// the server's resolver (the details go to the operator's log).
func reason(err error) string {
	var pe errPrivate
	var dnsErr *net.DNSError
	var opErr *net.OpError
	switch {
	case errors.As(err, &pe):
		return "refused: the endpoint's address is not a public one"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "the endpoint's host name does not resolve"
		}
		return "the endpoint's host name could not be resolved"
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return "no answer within the time allowed"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return "the endpoint could not be connected to"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if strings.Contains(err.Error(), "tls") || strings.Contains(err.Error(), "x509") {
		return "the TLS handshake with the endpoint failed: " + lectern.Truncate(err.Error(), 200)
	}
	return "the request failed"
}

// isTimeout reports whether err is a network timeout.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
