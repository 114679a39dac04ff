// Package features is what a site may run and how its files are served.
//
// Site says which optional features a site has (search, the AI assistant,
// web analytics, the "Try it" playground) and where the assistant and
// analytics send. Pages carry each feature's markup, scripts and styles
// between markers (BeginMarker, EndMarker), so that Transform can remove or
// configure them after the build, when a deployment's settings change,
// without building again. ContentSecurityPolicy is the policy pages are
// served under; ServeHeaders says how any file of a site is sent (pages
// under that policy, other files sandboxed by FileCSP, the repository's
// JavaScript as text). Lectern's own assets carry a hash of their content
// in their names (AssetName), so that servers may keep them for a year
// (HashedAsset).
//
// It knows nothing of how pages are built: it reads and rewrites their
// bytes.
package features
