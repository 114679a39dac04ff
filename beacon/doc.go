// Package beacon collects the web analytics events that docs pages send
// (analytics.js, navigator.sendBeacon): it reads and checks an event
// (Parse), tells readers from robots and prefetches (Counted), requests
// of the site's own pages from others (SameSite), names a day's visitor
// without keeping who they are (VisitorHash, with the day's salt of the
// store), and queues events to record them in batches off the request
// path (Collector: a full queue drops, never blocks). Live sites
// (package sites) and lectern selfhost answer their beacons with it.
package beacon
