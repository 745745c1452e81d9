package storage

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChangingColumns: every column an UPDATE of inquiries in this package sets is one of
// resolutionCols, changingCols or parked_run — what a resolution reads back or sets itself — so
// that resolvedFrom may take every other column from the record the caller read; and the lists
// name columns of the table, once each. A new UPDATE of another column fails here until the
// column is added to changingCols.
func TestChangingColumns(t *testing.T) {
	known := append(append([]string{"parked_run"}, resolutionCols...), changingCols...)
	for _, c := range known {
		require.True(t, slices.Contains(resolvedTable.names, c), "%s is not a column of inquiries", c)
	}
	sorted := slices.Clone(known)
	slices.Sort(sorted)
	require.Equal(t, len(known), len(slices.Compact(sorted)), "a column is listed twice")

	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	update := regexp.MustCompile(`(?is)UPDATE\s+inquiries\s+SET\s(.*?)(?:\sFROM\s|\sWHERE\s)`)
	assigned := regexp.MustCompile(`(?:^|,)\s*([a-z_]+)\s*=`)
	found := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range update.FindAllSubmatch(src, -1) {
			set := string(m[1])
			cols := assigned.FindAllStringSubmatch(set, -1)
			require.NotEmpty(t, cols, "%s: no column read from the UPDATE of inquiries SET %s", f, set)
			for _, c := range cols {
				found++
				require.Contains(t, known, c[1], "%s updates inquiries.%s: add it to changingCols (a resolution must read it back)", f, c[1])
			}
		}
	}
	// The statements this package has (resolution, votes, progress, placements, posted, failure,
	// parked run): a pattern that stopped matching them would pass for nothing.
	require.GreaterOrEqual(t, found, 20)
}
