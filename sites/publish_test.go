package sites

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"gocloud.dev/blob"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
	"lectern.dev/lectern/store"
)

// deployedAt is the time of the deployments publishManifest makes: far
// from the test's, so that a Last-Modified of the request's time or of
// the blobs' shows.
var deployedAt = time.Date(2024, 3, 4, 5, 6, 7, 0, time.UTC)

// publishLive publishes files as the update job does (jobs/compress.go):
// each content at its object key with its compressed copies worth it,
// the manifest (version 2), then FinishUpdate through st, which makes the
// deployment live.
func publishLive(t testing.TB, st store.Store, b *blob.Bucket, projectID string, files map[string]string) string {
	t.Helper()
	dep, _ := publishManifest(t, st, b, projectID, files, precompress.ManifestVersionShared)
	return dep
}

// publishManifest publishes files with a manifest of version (1: each
// deployment its own copies; 2, ManifestVersionShared: stored by content,
// as the update job does now) and makes the deployment live.
func publishManifest(t testing.TB, st store.Store, b *blob.Bucket, projectID string, files map[string]string, version int) (string, *precompress.Manifest) {
	t.Helper()
	var m *precompress.Manifest
	dep := deploy(t, st, projectID, len(files), func(dep string) {
		m = writeManifest(t, b, projectID, dep, files, version)
	})
	return dep, m
}

// writeManifest writes files as deployment dep of projectID, with a
// manifest of version, and returns the manifest.
func writeManifest(t testing.TB, b *blob.Bucket, projectID, dep string, files map[string]string, version int) *precompress.Manifest {
	t.Helper()
	ctx := context.Background()
	m := &precompress.Manifest{Version: version, CreatedAt: deployedAt, Files: map[string]precompress.File{}}
	e := hostEntry{projectID: projectID, deploymentID: dep, found: true}
	write := func(key string, data []byte) {
		if err := b.WriteAll(ctx, key, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range files {
		hash, _, _ := precompress.HashOf(strings.NewReader(body))
		m.Files[name] = precompress.File{Hash: hash, Size: int64(len(body))}
		f := m.Files[name]
		write(keyOf(e, m, name), []byte(body))
		if len(body) >= precompress.MinSize && precompress.Compressible(blobstore.ContentType(name)) {
			for enc := range precompress.NumEncodings {
				data, ok := precompress.Compress(enc, strings.NewReader(body), f.Size)
				if !ok {
					continue
				}
				write(variantKeyOf(e, m, name, enc), data)
				if enc == precompress.Brotli {
					f.Br = int64(len(data))
				} else {
					f.Gzip = int64(len(data))
				}
			}
		}
		m.Files[name] = f
	}
	data, _ := json.Marshal(m)
	write(precompress.ManifestKey(blobstore.SitePrefix(projectID, dep)), data)
	return m
}

// testKey returns the blob key file name of deployment dep is served from,
// as the server finds it through the deployment's manifest.
func testKey(t testing.TB, srv *Server, projectID, dep, name string) string {
	t.Helper()
	e := hostEntry{projectID: projectID, deploymentID: dep, found: true}
	keys, err := srv.deploymentKeys(context.Background(), e)
	if err != nil {
		t.Fatal(err)
	}
	return keys(name)
}

// A deployment published with a version-1 manifest, its own copies of
// every file beside it (before files were stored by content), is served
// as before, compressed copies and all.
func TestManifestVersion1Served(t *testing.T) {
	t.Parallel()
	s := newSite(t)
	publishManifest(t, s.st, s.bucket, s.p.ID, bigFiles, precompress.ManifestVersion)
	w := do(s.srv, "GET", "docs.example.com", "/", "Accept-Encoding", "br")
	if w.Code != 200 || w.Header().Get("Content-Encoding") != "br" || decode(t, "br", w.Body.Bytes()) != bigFiles["index.html"] {
		t.Errorf("GET / of a version-1 deployment = %d %q", w.Code, w.Header().Get("Content-Encoding"))
	}
	if w := do(s.srv, "GET", "docs.example.com", "/small.txt"); w.Code != 200 || w.Body.String() != bigFiles["small.txt"] {
		t.Errorf("GET /small.txt of a version-1 deployment = %d %q", w.Code, w.Body.String())
	}
}
