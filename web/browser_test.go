package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// ArtefactsEnv names a directory to keep the browser tests' screenshots in; unset, they go to
// the test's temporary directory (and are gone when it ends).
const ArtefactsEnv = "BOT_TEST_ARTEFACTS"

// chromium finds the browser: CHROMIUM, else Debian's chromium on the PATH. It fails the test
// when there is none — .ci/run installs it, and a browser test that silently skips proves
// nothing.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium to drive: install it (apt-get install chromium, as .ci/run does) or point CHROMIUM at one")
	return ""
}

// browser starts a headless Chromium of the test's own, on a fresh profile, with everything that
// would reach the network switched off (the machine's network is closed).
func browser(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(412, 915), // a phone's viewport
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc() })
	// Start it now, so that a browser that cannot start fails here, saying so.
	require.NoError(t, chromedp.Do(bctx), "start Chromium")
	return bctx
}

// tab opens a new tab of the browser, bounded in time.
func tab(t *testing.T, bctx context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(bctx)
	ctx, cancelTime := context.WithTimeout(ctx, 30*time.Second)
	t.Cleanup(func() { cancelTime(); cancel() })
	return ctx
}

// shot saves a full-page screenshot (quality 100: PNG; below it, Chromium sends JPEG) of the tab as name.png among the artefacts.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(ArtefactsEnv)
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	path := filepath.Join(dir, name+".png")
	require.NoError(t, os.WriteFile(path, png, 0o644))
	t.Logf("screenshot %s", path)
}

// text is the text of the element sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	require.NoError(t, err, "text of %s", sel)
	return s
}

// TestBrowser drives the page in a real browser: choose → confirm → answered, take back →
// nothing sent, an expired link, an already answered inquiry, a text over the ceiling, and a
// question holding <script> shown as text. Each state is kept as a screenshot.
func TestBrowser(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		bctx := browser(t)
		db := "sqlite"
		if strings.HasPrefix(dbURL, "postgres") {
			db = "postgres"
		}
		name := func(state string) string { return db + "-" + state }

		t.Run("choose confirm answered", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "choice", "question": "Merge pull request #42 into main?",
				"context": "CI is green; two reviews approved.", "options": []map[string]string{
					{"value": "merge", "label": "Merge"}, {"value": "hold", "label": "Hold", "description": "wait for the release"}},
				"default": "hold", "expires_in": "2h"})
			m := b.mint(q.Key, "alice@example.com")
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(m.URL)), chromedp.WaitVisible(chromedp.CSS("#option-0"))))
			require.Equal(t, "Merge pull request #42 into main?", text(t, ctx, "#question"))
			require.Equal(t, "Hold", text(t, ctx, "#assumed"))
			shot(t, ctx, name("1-question"))

			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#option-0")), chromedp.WaitVisible(chromedp.CSS("#send-what"))))
			require.Equal(t, "Send: Merge?", text(t, ctx, "#send-what"))
			require.Equal(t, "pending", b.get(q.Key).Status, "the confirmation sends nothing")
			shot(t, ctx, name("2-confirm"))

			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#send")), chromedp.WaitVisible(chromedp.CSS("#heading"))))
			require.Equal(t, "Sent", text(t, ctx, "#heading"))
			require.Contains(t, text(t, ctx, "#what"), "Merge by link:alice@example.com")
			shot(t, ctx, name("3-answered"))
			got := b.get(q.Key)
			require.Equal(t, "answered", got.Status)
			require.Equal(t, "merge", got.Answer.Value.First())
			require.Equal(t, "link:alice@example.com", got.Answer.AnsweredBy)
		})

		t.Run("take back", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "confirm", "question": "Deploy to production?"})
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#option-1")),
				chromedp.Click(chromedp.CSS("#option-1")), chromedp.WaitVisible(chromedp.CSS("#take-back"))))
			require.Equal(t, "Send: No?", text(t, ctx, "#send-what"))
			require.NoError(t, chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#take-back")), chromedp.WaitVisible(chromedp.CSS("#option-0"))))
			require.Equal(t, "Deploy to production?", text(t, ctx, "#question"))
			shot(t, ctx, name("4-taken-back"))
			got := b.get(q.Key)
			require.Equal(t, "pending", got.Status, "taking back sends nothing")
			require.Nil(t, got.Answer)
		})

		t.Run("expired link", func(t *testing.T) {
			q := b.merge()
			m := b.mint(q.Key, "bob@example.com", "5m")
			b.clock.Add(6 * time.Minute)
			t.Cleanup(func() { b.clock.Add(-6 * time.Minute) })
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(m.URL)), chromedp.WaitVisible(chromedp.CSS("#heading"))))
			require.Equal(t, "This link no longer works", text(t, ctx, "#heading"))
			require.Contains(t, text(t, ctx, "#what"), "expired at")
			shot(t, ctx, name("5-expired"))
		})

		t.Run("already answered", func(t *testing.T) {
			q := b.merge()
			var v inquiryView
			require.Equal(t, 200, b.api("POST", "/v1/inquiries/"+q.Key+"/answer", b.answerer, map[string]string{"value": "hold"}, &v))
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#heading"))))
			require.Equal(t, "Already answered", text(t, ctx, "#heading"))
			require.Contains(t, text(t, ctx, "#what"), "Hold by answerer")
			shot(t, ctx, name("6-already-answered"))
		})

		t.Run("text over the ceiling", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "text", "question": "What should the release notes say?"})
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#text"))))
			// The browser keeps typing within maxlength; past it only a tampered form goes, and the
			// server must refuse that itself.
			maxlen, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("text").getAttribute("maxlength")`))
			require.NoError(t, err)
			require.Equal(t, "2000", maxlen)
			long := strings.Repeat("a", inquiry.DefaultAnswerChars+5)
			require.NoError(t, chromedp.Do(ctx, chromedp.RemoveAttribute(chromedp.CSS("#text"), "maxlength"),
				chromedp.SetValue(chromedp.CSS("#text"), long), chromedp.Click(chromedp.CSS("#review-text")),
				chromedp.WaitVisible(chromedp.CSS("#problem"))))
			require.Contains(t, text(t, ctx, "#problem"), "2005 characters long but may have at most 2000")
			shot(t, ctx, name("7-text-over-ceiling"))
			require.Equal(t, "pending", b.get(q.Key).Status)
		})

		t.Run("script in the question", func(t *testing.T) {
			q := b.askWith(map[string]any{"kind": "confirm", "question": `<script>document.title="pwned"</script> Ship?`,
				"context": `<img src=x onerror="document.title='pwned'">`})
			ctx := tab(t, bctx)
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(b.abs(q.Links.Answer)), chromedp.WaitVisible(chromedp.CSS("#question"))))
			require.Equal(t, `<script>document.title="pwned"</script> Ship?`, text(t, ctx, "#question"), "shown as text")
			title, err := chromedp.Run(ctx, chromedp.Title())
			require.NoError(t, err)
			require.NotEqual(t, "pwned", title)
			scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length + document.images.length`))
			require.NoError(t, err)
			require.Zero(t, scripts, "no script or image element came from the question")
			shot(t, ctx, name("8-script-as-text"))
		})
	})
}
