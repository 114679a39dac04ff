package jobs

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/store"
)

// defaultObjectAge is Janitor.ObjectAge's default: an update stores its
// new files before it writes the manifest that names them.
const defaultObjectAge = time.Hour

// sweepObjects deletes the project's stored files (precompress.ObjectKey)
// that no recorded deployment's manifest names and that are older than
// ObjectAge. It does nothing while an update of the project is queued or
// running, since that update may be sharing files of a deployment
// collected meanwhile, nor when a manifest cannot be read: a file is
// deleted only when it is certain that nothing names it. It returns the
// number deleted.
func (j *Janitor) sweepObjects(ctx context.Context, projectID string, now time.Time) (int, error) {
	ups, err := j.Store.ListUpdates(ctx, projectID, store.Page{Limit: 20})
	if err != nil {
		return 0, err
	}
	for _, u := range ups {
		if !u.Status.Terminal() {
			return 0, nil
		}
	}
	deps, err := j.Store.ListDeployments(ctx, projectID, store.Page{})
	if err != nil {
		return 0, err
	}
	named, sources := map[string]bool{}, map[string]bool{}
	for _, d := range deps {
		l, err := readSourceList(ctx, j.Bucket, projectID, d.ID)
		if err != nil {
			return 0, err
		}
		if l != nil {
			for _, f := range l.Files {
				sources[f.Hash] = true
			}
		}
		data, err := j.Bucket.ReadAll(ctx, precompress.ManifestKey(blobstore.SitePrefix(projectID, d.ID)))
		if gcerrors.Code(err) == gcerrors.NotFound {
			continue // published before manifests: its files are its own
		}
		if err != nil {
			return 0, err
		}
		m, err := precompress.ParseManifest(data)
		if err != nil {
			return 0, err
		}
		for _, f := range m.Files {
			named[f.Hash] = true
		}
	}
	age := j.ObjectAge
	if age <= 0 {
		age = defaultObjectAge
	}
	deleted := 0
	for _, sw := range []struct {
		prefix string
		named  map[string]bool
	}{
		{precompress.ObjectKey(blobstore.ProjectPrefix(projectID), ""), named},
		{blobstore.SourceObjectKey(projectID, ""), sources},
	} {
		n, err := j.sweepPrefix(ctx, sw.prefix, sw.named, now.Add(-age))
		deleted += n
		if err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// sweepPrefix deletes the blobs under prefix whose name (up to its first
// dot: a stored file's copies go with it) named does not hold and that
// were written before before.
func (j *Janitor) sweepPrefix(ctx context.Context, prefix string, named map[string]bool, before time.Time) (int, error) {
	it := j.Bucket.List(&blob.ListOptions{Prefix: prefix})
	deleted := 0
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return deleted, nil
		}
		if err != nil {
			return deleted, err
		}
		hash, _, _ := strings.Cut(strings.TrimPrefix(obj.Key, prefix), ".")
		if named[hash] || !obj.ModTime.Before(before) {
			continue
		}
		if err := j.Bucket.Delete(ctx, obj.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return deleted, err
		}
		deleted++
	}
}
