package sites

import (
	"context"

	"lectern.dev/lectern/blobstore"
	"lectern.dev/lectern/internal/precompress"
)

// keyOf returns the blob key of site file name of deployment e, whose
// manifest is m (nil: a deployment published without one): the
// deployment's own copy, or, when the manifest's files are stored by
// content (precompress.Manifest.Shared), the project's stored file of its
// hash; "" when such a manifest lists no such file.
func keyOf(e hostEntry, m *precompress.Manifest, name string) string {
	if m != nil && m.Shared() {
		f, ok := m.Files[name]
		if !ok {
			return ""
		}
		return precompress.ObjectKey(blobstore.ProjectPrefix(e.projectID), f.Hash)
	}
	return blobstore.SiteKey(e.projectID, e.deploymentID, name)
}

// variantKeyOf returns the blob key of the enc copy of site file name of
// deployment e, whose manifest is m (not nil: only deployments with a
// manifest have copies).
func variantKeyOf(e hostEntry, m *precompress.Manifest, name string, enc int) string {
	if m.Shared() {
		return precompress.ObjectVariantKey(keyOf(e, m, name), enc)
	}
	return precompress.VariantKey(blobstore.SitePrefix(e.projectID, e.deploymentID), enc, name)
}

// deploymentKeys returns the function that gives the blob key of a file
// of deployment e (keyOf), its manifest read first.
func (s *Server) deploymentKeys(ctx context.Context, e hostEntry) (func(name string) string, error) {
	m, err := s.manifests.get(ctx, s.bucket, e)
	if err != nil {
		return nil, err
	}
	return func(name string) string { return keyOf(e, m, name) }, nil
}
