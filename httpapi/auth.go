package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"lectern.dev/lectern"
)

// principal is the authenticated caller: an API key of one organization.
type principal struct {
	KeyID string
	OrgID string
}

func principalOf(ctx context.Context) principal {
	return stateOf(ctx).principal
}

// bearerToken extracts the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	vals := r.Header.Values("Authorization")
	if len(vals) != 1 {
		return "", false
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(vals[0]), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != "" && !strings.ContainsAny(token, " \t")
}

// authenticate requires an admin API key. A request from a browser (it
// carries an Origin header) is refused whatever the key: admin keys are
// server-side secrets, and answering would make the page a key oracle.
func (a *api) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := bearerToken(r)
		if !ok {
			writeError(w, r, a.log, lectern.Errorf(lectern.EUNAUTHORIZED,
				"Send an admin API key in the Authorization header: \"Authorization: Bearer lct_...\"."))
			return
		}
		if r.Header.Get("Origin") != "" {
			writeError(w, r, a.log, lectern.Errorf(lectern.EORIGIN,
				"Admin API keys are server-side secrets and must not be sent from browser code; call the API from a server or CI job."))
			return
		}
		if err := lectern.CheckAPIKey(token); err != nil {
			writeError(w, r, a.log, err)
			return
		}
		key, err := a.store.GetAPIKeyByHash(r.Context(), lectern.HashAPIKey(token))
		if lectern.ErrorCode(err) == lectern.ENOTFOUND || err == nil && key.RevokedAt != nil {
			writeError(w, r, a.log, lectern.Errorf(lectern.EINVALIDKEY, "The API key is unknown or has been revoked."))
			return
		}
		if err != nil {
			writeError(w, r, a.log, err)
			return
		}
		a.touch.note(a, key.ID)
		if st, ok := r.Context().Value(stateKey).(*requestState); ok {
			st.principal = principal{KeyID: key.ID, OrgID: key.OrgID}
			next.ServeHTTP(w, r)
			return
		}
		st := &requestState{principal: principal{KeyID: key.ID, OrgID: key.OrgID}}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), stateKey, st)))
	})
}

// keyToucher records key use at most once a minute per key, off the
// request path.
type keyToucher struct {
	mu   sync.Mutex
	last map[string]time.Time
}

func (t *keyToucher) note(a *api, keyID string) {
	now := time.Now()
	t.mu.Lock()
	if now.Sub(t.last[keyID]) < time.Minute {
		t.mu.Unlock()
		return
	}
	if t.last == nil {
		t.last = map[string]time.Time{}
	}
	t.last[keyID] = now
	t.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := a.store.TouchAPIKey(ctx, keyID, now); err != nil {
			a.log.Debug("could not record API key use", "key_id", keyID, "err", err)
		}
	}()
}
