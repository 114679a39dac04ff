// Package blobstore wraps a gocloud.dev/blob bucket with Lectern's key
// layout and time-limited download links. A bucket is opened by URL:
// file:///path for the embedded default (links are HMAC-signed URLs that
// Lectern itself serves, see LocalLinks) and s3://bucket?endpoint=...&region=...
// for any S3-compatible object store (links are the object store's own
// presigned URLs, see BucketLinks; credentials come from the environment,
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the machine's role).
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/fileblob" // file:// buckets
	_ "gocloud.dev/blob/s3blob"   // s3:// buckets
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern"
)

// Open opens the bucket at urlstr. For file:// URLs the folder is created
// when missing, and it and the folders under it are created 0700. An s3:// bucket is checked at once by writing and deleting
// a small probe object, so that a wrong endpoint, bucket or credentials
// fail here rather than in the first job. The error names the URL without
// any credentials and says what to check; it never repeats a secret.
func Open(ctx context.Context, urlstr string) (*blob.Bucket, error) {
	u, err := url.Parse(urlstr)
	if err != nil {
		return nil, errors.New("blob URL is not a valid URL (it is not repeated here: it may hold credentials)")
	}
	switch u.Scheme {
	case "file", "s3":
	default:
		return nil, fmt.Errorf("blob store %s: unsupported scheme %q (use file:///PATH or s3://BUCKET?endpoint=...&region=...)", Redact(urlstr), u.Scheme)
	}
	if u.Scheme == "s3" && u.Host == "" {
		return nil, fmt.Errorf("blob store %s: no bucket name (s3://BUCKET?...)", Redact(urlstr))
	}
	if u.Scheme == "file" {
		dir := u.Path
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("blob folder %s: %w", dir, err)
		}
		q := u.Query()
		q.Set("create_dir", "true")
		// Blobs are private to the server: folders are created 0700.
		q.Set("dir_file_mode", "0700")
		// Write temporary files beside their blobs, not in the system temp
		// folder, which may be another filesystem (rename would fail).
		q.Set("no_tmp_dir", "true")
		// No sidecar file of attributes: fileblob writes it in place
		// after renaming the blob, so a reader during an overwrite could
		// find it empty and fail. Nothing reads them back from files:
		// local links and the sites set their headers from the key.
		q.Set("metadata", "skip")
		u.RawQuery = q.Encode()
		urlstr = u.String()
	}
	b, err := blob.OpenBucket(ctx, urlstr)
	if err != nil {
		// The driver's message may repeat the URL with its credentials.
		msg := strings.ReplaceAll(err.Error(), urlstr, Redact(urlstr))
		if u.User != nil || u.RawQuery != "" {
			msg = "unsupported or misconfigured blob store (" + u.Scheme + "://)"
		}
		return nil, fmt.Errorf("open blob store %s: %s", Redact(urlstr), msg)
	}
	if u.Scheme == "s3" {
		if err := probe(ctx, b); err != nil {
			b.Close()
			return nil, fmt.Errorf("blob store %s: %w", Redact(urlstr), err)
		}
	}
	return b, nil
}

// credentialsCode reports whether an S3 error code says the credentials
// were refused: AWS's own codes (InvalidAccessKeyId, SignatureDoesNotMatch,
// ExpiredToken, AccessDenied...) and those of compatible servers, some of
// which answer an unknown key with 404 (XAdminUserNotFound).
func credentialsCode(code string) bool {
	for _, part := range []string{"AccessKey", "Signature", "Credential", "Token", "UserNotFound", "AccessDenied", "Unauthorized"} {
		if strings.Contains(code, part) {
			return true
		}
	}
	return false
}

// probe writes and deletes a small object, and explains a failure. The
// object's name is its own, so processes starting at once on one bucket do
// not delete each other's probe.
func probe(ctx context.Context, b *blob.Bucket) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	probeKey := "_lectern/probe-" + lectern.NewID("")
	err := b.WriteAll(ctx, probeKey, []byte("ok"), nil)
	if err == nil {
		err = b.Delete(ctx, probeKey)
	}
	if err == nil {
		return nil
	}
	var api interface{ ErrorCode() string }
	code := ""
	if errors.As(err, &api) {
		code = api.ErrorCode()
	}
	var resp interface{ HTTPStatusCode() int }
	status := 0
	if errors.As(err, &resp) {
		status = resp.HTTPStatusCode()
	}
	switch {
	case code == "NoSuchBucket":
		return errors.New("the bucket does not exist: create it, or fix the bucket name in the URL")
	case credentialsCode(code) || status == 401 || status == 403 || gcerrors.Code(err) == gcerrors.PermissionDenied:
		if code == "" {
			code = "AccessDenied"
		}
		return fmt.Errorf("the object store refused the credentials (%s): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the machine's role) and the bucket's policy", code)
	case gcerrors.Code(err) == gcerrors.NotFound:
		return errors.New("the bucket does not exist: create it, or fix the bucket name in the URL")
	case ctx.Err() != nil:
		return errors.New("the object store did not answer within 30s: check the endpoint in the URL")
	case code != "":
		return fmt.Errorf("the object store refused a test write (%s)", code)
	}
	return errors.New("the object store could not be reached: check the endpoint and region in the URL")
}

// FileURL returns the file:// bucket URL of a local folder.
func FileURL(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String(), nil
}

// Redact removes credentials from a bucket URL for logs and errors.
func Redact(urlstr string) string { return lectern.RedactURL(urlstr) }

// SiteKey returns the key of a file of a deployment's rendered site. The
// file bucket reserves names ending in ".attrs" for its metadata, so such
// names (and names that look like their escaped form) get ".lectern"
// appended: every file name still maps to its own key.
func SiteKey(projectID, deploymentID, name string) string {
	if strings.HasSuffix(stripEscapes(name), ".attrs") {
		name += reservedEscape
	}
	return SitePrefix(projectID, deploymentID) + "site/" + name
}

const reservedEscape = ".lectern"

// stripEscapes removes every trailing ".lectern".
func stripEscapes(name string) string {
	for strings.HasSuffix(name, reservedEscape) {
		name = strings.TrimSuffix(name, reservedEscape)
	}
	return name
}

// ProjectPrefix returns the prefix under which a project's deployments
// live, each in a folder named by its ID.
func ProjectPrefix(projectID string) string { return "sites/" + projectID + "/" }

// SitePrefix returns the prefix under which a deployment's blobs live.
func SitePrefix(projectID, deploymentID string) string {
	return ProjectPrefix(projectID) + deploymentID + "/"
}

// SourceFilesKey returns the key of the list of a deployment's source
// files (the update job's snapshot of the docs, stored file by file),
// each at its SourceObjectKey.
func SourceFilesKey(projectID, deploymentID string) string {
	return SitePrefix(projectID, deploymentID) + "source.json"
}

// SourceObjectKey returns the key of the source file of content hash
// among the project's stored source files, shared by its deployments.
func SourceObjectKey(projectID, hash string) string {
	return ProjectPrefix(projectID) + "sources/" + hash
}

// SourceKey returns the key of a deployment's source snapshot as one
// archive (.tar.gz), as deployments published before SourceFilesKey have.
func SourceKey(projectID, deploymentID string) string {
	return SitePrefix(projectID, deploymentID) + "source.tar.gz"
}

// BundleKey returns the key of the archive an export job's claim (its
// lease token) writes; the last segment is the download file name. Each
// claim writes its own key, so a worker that lost its lease can never
// overwrite the archive another claim finished and linked.
func BundleKey(jobID string, claim int64, fileName string) string {
	return "exports/" + jobID + "/" + strconv.FormatInt(claim, 10) + "/" + fileName
}

// ExportPrefix returns the prefix of an export job's blobs.
func ExportPrefix(jobID string) string { return "exports/" + jobID + "/" }

// ContentType returns the media type for a file name.
func ContentType(name string) string {
	ext := strings.ToLower(path.Ext(name))
	switch ext {
	case ".html", ".htm":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js", ".mjs":
		return "text/javascript; charset=utf-8"
	case ".json":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	case ".xml":
		return "application/xml"
	case ".txt":
		return "text/plain; charset=utf-8"
	case ".gz", ".tgz":
		return "application/gzip"
	case ".woff2":
		return "font/woff2"
	case ".webp":
		return "image/webp"
	}
	if t := mime.TypeByExtension(ext); t != "" {
		return t
	}
	return "application/octet-stream"
}

// DeletePrefix deletes every blob under prefix. It returns the first error
// but tries every blob.
func DeletePrefix(ctx context.Context, b *blob.Bucket, prefix string) error {
	it := b.List(&blob.ListOptions{Prefix: prefix})
	var first error
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return err
		}
		if err := b.Delete(ctx, obj.Key); err != nil && first == nil {
			first = err
		}
	}
	return first
}
