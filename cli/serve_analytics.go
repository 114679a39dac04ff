package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// analyticsFlags are serve's settings of the cloud sites' web analytics.
type analyticsFlags struct {
	retention, aggregates time.Duration
}

func (f *analyticsFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.retention, "analytics-retention", 30*24*time.Hour, "how long raw analytics events (each page view, search and vote, with its comment) are kept")
	fs.DurationVar(&f.aggregates, "analytics-aggregate-retention", 2*365*24*time.Hour, "how long the daily analytics totals (views, visitors, searches, votes per page and day) are kept")
}

func (f *analyticsFlags) check() error {
	switch {
	case f.retention < 24*time.Hour:
		return fmt.Errorf("--analytics-retention %s is shorter than a day", f.retention)
	case f.aggregates < f.retention:
		return fmt.Errorf("--analytics-aggregate-retention %s is shorter than --analytics-retention %s", f.aggregates, f.retention)
	}
	return nil
}
