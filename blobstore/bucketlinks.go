package blobstore

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"gocloud.dev/blob"
)

// MaxBucketLinkTTL is the longest lifetime of an S3 presigned link (SigV4
// allows at most seven days).
const MaxBucketLinkTTL = 7 * 24 * time.Hour

// BucketLinks signs links with the bucket's own presigned URLs (S3 SigV4
// query signatures): a download goes to the object store directly, without
// Lectern in its path, and the object store refuses it once expired or
// altered. It is the Linker of s3:// buckets.
type BucketLinks struct {
	Bucket *blob.Bucket
}

// SignedURL returns a presigned GET link to key valid for ttl (rounded up
// to a second, at most MaxBucketLinkTTL) and the moment the object store
// stops accepting it. Like LocalLinks, it signs export bundles' keys only.
// Other errors come from the bucket's signer.
func (l *BucketLinks) SignedURL(ctx context.Context, key string, ttl time.Duration) (string, time.Time, error) {
	if !IsBundleKey(key) {
		return "", time.Time{}, fmt.Errorf("download links reach export bundles only, not %q", key)
	}
	ttl = (ttl + time.Second - 1).Truncate(time.Second)
	if ttl <= 0 || ttl > MaxBucketLinkTTL {
		return "", time.Time{}, fmt.Errorf("link lifetime %s is outside 1s..%s", ttl, MaxBucketLinkTTL)
	}
	before := time.Now().UTC().Truncate(time.Second)
	u, err := l.Bucket.SignedURL(ctx, key, &blob.SignedURLOptions{Expiry: ttl, Method: http.MethodGet})
	if err != nil {
		return "", time.Time{}, err
	}
	exp, err := presignedExpiry(u)
	if err != nil {
		// A signer that does not say when its link ends: count from before
		// signing, which can only make the stated expiry early, never late.
		exp = before.Add(ttl)
	}
	return u, exp, nil
}

// presignedExpiry reads the end of a SigV4 presigned URL's validity from
// its X-Amz-Date and X-Amz-Expires parameters.
func presignedExpiry(link string) (time.Time, error) {
	u, err := url.Parse(link)
	if err != nil {
		return time.Time{}, err
	}
	q := u.Query()
	signed, err := time.Parse("20060102T150405Z", q.Get("X-Amz-Date"))
	if err != nil {
		return time.Time{}, err
	}
	secs, err := strconv.Atoi(q.Get("X-Amz-Expires"))
	if err != nil || secs <= 0 {
		return time.Time{}, errors.New("no X-Amz-Expires in the presigned URL")
	}
	return signed.Add(time.Duration(secs) * time.Second).UTC(), nil
}
