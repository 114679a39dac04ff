// Package selfhost is Lectern's self-hosted runtime: the program a
// client-hosted or air-gapped installation runs to serve an exported static
// bundle as its live documentation site.
//
// A [Config] comes from a YAML file and LECTERN_* environment variables
// ([LoadConfig]); it names the deployment type, the bundle link, an optional
// version pin and the site features, checked against the feature table of
// the root package. A [Cache] downloads a bundle ([Fetch]), verifies it with
// the bundle package's reader and extracts it under the cache folder by
// version, never writing outside it. A [Runtime] builds the served tree
// from a cached bundle and the configured features, switches to it
// atomically, serves it ([Site]) and re-applies the configuration on SIGHUP
// or when its file changes, keeping the current site when anything fails.
// With web analytics and no endpoint, [Analytics] records the pages' events
// and the own assistant's questions in a SQLite file of the cache folder,
// and serves the Lectern API's analytics reports to the configured key.
package selfhost
