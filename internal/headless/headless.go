// Package headless holds the flags with which Lectern's tests
// (internal/browsertest) and benchmarks (bench/searchdriver) start headless
// Chromium: one set, so that both measure and check the same browser.
package headless

import "github.com/chromedp/chromedp"

// Options are the allocator options for Chromium at exe with the user-data
// folder dataDir: headless, no sandbox, no GPU, no QUIC, no background
// networking, component update, sync or first-run page, /dev/shm not used,
// and a 1280×900 window.
func Options(exe, dataDir string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(dataDir),
	}
}

// LoopbackOnly are options that keep every page on 127.0.0.1: a host
// resolver that resolves no name, and a proxy that is not there for every
// other address.
func LoopbackOnly() []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.ProxyServer("http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "127.0.0.1"),
	}
}
