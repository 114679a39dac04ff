package actions

import (
	"context"
	"strings"
	"unicode/utf8"

	"lectern.dev/lectern"
)

// MaxKeyName bounds an API key's name, in characters.
const MaxKeyName = 100

// CreateAPIKey makes an admin API key of the organization named name (1
// to MaxKeyName characters, no control characters) and returns it with
// its secret, which is shown once and kept nowhere (the store keeps its
// hash). ENOTFOUND when the organization is missing.
func (s *Service) CreateAPIKey(ctx context.Context, org, name string) (*lectern.APIKey, string, error) {
	name = strings.TrimSpace(name)
	if name == "" || utf8.RuneCountInString(name) > MaxKeyName || strings.ContainsFunc(name, func(c rune) bool { return c < ' ' || c == 0x7f }) {
		return nil, "", &lectern.Error{Code: lectern.EINVALID,
			Message: "Give the key a name of 1 to 100 characters (no control characters), to recognise it by.",
			Fields:  []lectern.FieldError{{Field: "name", Message: "must be 1 to 100 characters, without control characters"}}}
	}
	secret := lectern.NewAPIKey()
	k := &lectern.APIKey{OrgID: org, Name: name, Hint: lectern.APIKeyHint(secret), Hash: lectern.HashAPIKey(secret), CreatedAt: s.now()}
	if err := s.Store.CreateAPIKey(ctx, k); err != nil {
		return nil, "", err
	}
	return k, secret, nil
}
