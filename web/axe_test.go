package web_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// axeScript is axe-core's script, installed by npm ci in .ci/axe (as .ci/run does), or the file
// AXE_CORE names. It fails the test when there is none: an accessibility check that silently
// skips proves nothing.
func axeScript(t *testing.T) string {
	t.Helper()
	path := os.Getenv("AXE_CORE")
	if path == "" {
		path = "../.ci/axe/node_modules/axe-core/axe.min.js"
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no axe-core to check the page with (%v): run npm ci in .ci/axe, as .ci/run does, or point AXE_CORE at axe.min.js", err)
	}
	return string(src)
}

// axeViolation is one rule axe-core found broken, as the test reports it.
type axeViolation struct {
	ID    string   `json:"id"`
	Help  string   `json:"help"`
	Nodes []string `json:"nodes"`
}

// requireAxeClean runs axe-core's WCAG 2 A and AA rules on the tab's page and fails the test on
// any violation. The script is evaluated through the DevTools protocol, which the page's CSP
// (no script at all) does not govern, so the page is checked as it is served.
func requireAxeClean(t *testing.T, ctx context.Context, src string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](src+";true"))
	require.NoError(t, err, "inject axe-core")
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}, resultTypes: ["violations"]}).then(r =>
		r.violations.map(v => ({id: v.id, help: v.help, nodes: v.nodes.slice(0, 3).map(n => n.target.join(" "))})))`,
		chromedp.EvalAwaitPromise))
	require.NoError(t, err, "run axe-core")
	var lines []string
	for _, v := range got {
		lines = append(lines, fmt.Sprintf("%s (%s): %s", v.ID, v.Help, strings.Join(v.Nodes, ", ")))
	}
	require.Empty(t, lines, "axe-core finds the page inaccessible")
}
