package lectern

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"time"
)

// ID prefixes, one per resource.
const (
	PrefixOrg        = "org_"
	PrefixProject    = "prj_"
	PrefixKey        = "key_"
	PrefixUpdate     = "upd_"
	PrefixExport     = "exp_"
	PrefixDeployment = "dep_"
	PrefixWebhook    = "whk_"
	PrefixDelivery   = "msg_"
	// PrefixAssistantMessage names a question to the docs assistant and
	// its answer (AssistantMessage).
	PrefixAssistantMessage = "ask_"
	// PrefixUser names a dashboard account (User); PrefixSession one of
	// its signed-in sessions (Session).
	PrefixUser    = "usr_"
	PrefixSession = "ses_"
)

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// NewID returns prefix followed by 26 characters: 48 bits of millisecond
// time then 80 random bits, in lower-case Crockford base32, so that IDs of
// one prefix sort by creation time.
func NewID(prefix string) string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("lectern: no randomness: " + err.Error())
	}
	var sb strings.Builder
	sb.Grow(len(prefix) + 26)
	sb.WriteString(prefix)
	// 128 bits -> 26 base32 digits (130 bits, top two zero).
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	for i := 25; i >= 0; i-- {
		shift := uint(i * 5)
		var v uint64
		switch {
		case shift >= 64:
			v = hi >> (shift - 64)
		case shift > 59:
			v = lo>>shift | hi<<(64-shift)
		default:
			v = lo >> shift
		}
		sb.WriteByte(crockford[v&31])
	}
	return sb.String()
}

// ValidID reports whether s looks like an ID with the given prefix. It
// checks shape only, so a malformed ID can be refused without a lookup.
func ValidID(prefix, s string) bool {
	if !strings.HasPrefix(s, prefix) || len(s) != len(prefix)+26 {
		return false
	}
	for _, c := range s[len(prefix):] {
		if !strings.ContainsRune(crockford, c) {
			return false
		}
	}
	return true
}

// IDTime returns the creation time an ID of NewID's form holds (to the
// millisecond), or false when s is not such an ID with the prefix.
func IDTime(prefix, s string) (time.Time, bool) {
	if !ValidID(prefix, s) {
		return time.Time{}, false
	}
	// The first 10 digits are 50 bits: two zero bits, then the 48 bits of
	// millisecond time.
	var ms int64
	for _, c := range s[len(prefix) : len(prefix)+10] {
		ms = ms<<5 | int64(strings.IndexRune(crockford, c))
	}
	return time.UnixMilli(ms).UTC(), true
}
