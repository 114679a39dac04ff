package lectern

import (
	"crypto/rand"
	"crypto/sha256"
	"hash/crc32"
	"math/big"
)

// API key format: "lct_", 32 random base62 characters, then 6 base62
// characters of the CRC32 of the random part. The checksum lets a key be
// refused (and secret scanners recognise one) without a database lookup.
const (
	APIKeyPrefix  = "lct_"
	apiKeyRandLen = 32
	apiKeySumLen  = 6
	// APIKeyLen is the length of a well-formed key.
	APIKeyLen = len(APIKeyPrefix) + apiKeyRandLen + apiKeySumLen
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewAPIKey returns a fresh key. It panics only if the system has no
// randomness.
func NewAPIKey() string {
	b := make([]byte, 0, APIKeyLen)
	b = append(b, APIKeyPrefix...)
	max := big.NewInt(62)
	for range apiKeyRandLen {
		n, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic("lectern: no randomness: " + err.Error())
		}
		b = append(b, base62[n.Int64()])
	}
	return string(append(b, apiKeyChecksum(b[len(APIKeyPrefix):])...))
}

func apiKeyChecksum(random []byte) []byte {
	v := crc32.ChecksumIEEE(random)
	out := make([]byte, apiKeySumLen)
	for i := apiKeySumLen - 1; i >= 0; i-- {
		out[i] = base62[v%62]
		v /= 62
	}
	return out
}

// CheckAPIKey reports whether s is a well-formed key with a valid checksum.
// It returns an EINVALIDKEY error that never repeats the key.
func CheckAPIKey(s string) error {
	if len(s) != APIKeyLen || s[:len(APIKeyPrefix)] != APIKeyPrefix {
		return Errorf(EINVALIDKEY, "The API key is malformed: keys start with %q and are %d characters long.", APIKeyPrefix, APIKeyLen)
	}
	body := s[len(APIKeyPrefix):]
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return Errorf(EINVALIDKEY, "The API key is malformed: it has characters outside base62.")
		}
	}
	sum := apiKeyChecksum([]byte(body[:apiKeyRandLen]))
	if string(sum) != body[apiKeyRandLen:] {
		return Errorf(EINVALIDKEY, "The API key's checksum does not match: it was mistyped or truncated.")
	}
	return nil
}

// HashAPIKey returns the SHA-256 of a key, the only form that is stored.
func HashAPIKey(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// APIKeyHint returns the part of a key safe to show in lists: the prefix and
// the first four random characters.
func APIKeyHint(key string) string {
	if len(key) < len(APIKeyPrefix)+4 {
		return APIKeyPrefix
	}
	return key[:len(APIKeyPrefix)+4] + "…"
}
