package components

import (
	"maps"
	"slices"
)

// Names are the components of the table, sorted, for the golden test
// (golden_test.go), which needs a page for each.
func Names() []string { return slices.Sorted(maps.Keys(components)) }
