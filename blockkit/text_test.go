package blockkit

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestChunk(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		s     string
		first int
		limit int
		want  []string
	}{
		{"fits", "abc", 10, 10, []string{"abc"}},
		{"hard cut", strings.Repeat("a", 25), 10, 10, []string{strings.Repeat("a", 10), strings.Repeat("a", 10), strings.Repeat("a", 5)}},
		{"first budget", strings.Repeat("a", 12), 5, 10, []string{"aaaaa", "aaaaaaa"}},
		{"at a line break", "aaaa\nbbbbbbbb", 10, 10, []string{"aaaa\nbbbbb", "bbb"}},
		{"prefers a line break in the second half", "aaaaaa\nbb bbbbbb", 10, 10, []string{"aaaaaa\n", "bb bbbbbb"}},
		{"at a space", "aaaaaa bbbbbb", 10, 10, []string{"aaaaaa ", "bbbbbb"}},
		{"never inside an entity", "aaaaaaa&amp;b", 10, 10, []string{"aaaaaaa", "&amp;b"}},
		{"whole entities", strings.Repeat("&amp;", 5), 12, 12, []string{"&amp;&amp;", "&amp;&amp;", "&amp;"}},
		{"never inside a token", "aaaaaa<@U1>", 8, 8, []string{"aaaaaa", "<@U1>"}},
		{"blank pieces dropped", "aaa" + strings.Repeat(" ", 20) + "b", 10, 10, []string{"aaa       ", "   b"}},
		{"runes not bytes", strings.Repeat("🦀", 12), 10, 10, []string{strings.Repeat("🦀", 10), "🦀🦀"}},
	} {
		got := chunk(tc.s, tc.first, tc.limit)
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s: chunk(%q) = %q, want %q", tc.name, tc.s, got, tc.want)
		}
	}
}

// TestChunkProperties splits random escaped text and checks every piece is within its limit,
// no entity is split, and nothing is lost.
func TestChunkProperties(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []rune("ab &<>\n@€🦀")
	for range 500 {
		r := make([]rune, rng.IntN(3000))
		for i := range r {
			r[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := Escape(string(r))
		first, limit := 5+rng.IntN(300), 5+rng.IntN(300)
		pieces := chunk(s, first, limit)
		if strings.Join(pieces, "") != s && strings.TrimSpace(strings.Join(pieces, "")) != strings.TrimSpace(s) {
			// Only blank pieces may be dropped: compare without blanks.
			if strings.Join(strings.Fields(strings.Join(pieces, "")), "") != strings.Join(strings.Fields(s), "") {
				t.Fatalf("chunk lost text of %q", s)
			}
		}
		for i, p := range pieces {
			max := limit
			if i == 0 {
				max = first
			}
			if n := utf8.RuneCountInString(p); n > max {
				t.Fatalf("piece %d of %d characters, limit %d", i, n, max)
			}
			if amp := strings.LastIndexByte(p, '&'); amp >= 0 && !strings.Contains(p[amp:], ";") {
				t.Fatalf("piece %d ends inside an entity: %q", i, p)
			}
			if !utf8.ValidString(p) {
				t.Fatalf("piece %d is not valid UTF-8", i)
			}
		}
	}
}

// cut is a case of a function that shortens s to at most max characters.
type cut struct {
	s    string
	max  int
	want string
}

// checkCuts runs the cases of the shortening function f (called name in messages): each result
// is want, and never over max characters.
func checkCuts(t *testing.T, name string, f func(string, int) string, cases []cut) {
	t.Helper()
	for _, tc := range cases {
		got := f(tc.s, tc.max)
		if got != tc.want {
			t.Errorf("%s(%q, %d) = %q, want %q", name, tc.s, tc.max, got, tc.want)
		}
		if n := utf8.RuneCountInString(got); n > tc.max {
			t.Errorf("%s(%q, %d) = %q: %d characters, over its limit", name, tc.s, tc.max, got, n)
		}
	}
}

func TestShort(t *testing.T) {
	t.Parallel()
	checkCuts(t, "short", short, []cut{
		{"hello", 10, "hello"},
		{"a  b\n c", 10, "a b c"},
		{"&&&&", 10, "&amp;…"},
		{"hello world", 8, "hello w…"},
		{"<<<", 12, "&lt;&lt;&lt;"},
		{"<<<<", 12, "&lt;&lt;…"},
		{"@here@here", 6, "@her…"},
	})
}

func TestClip(t *testing.T) {
	t.Parallel()
	checkCuts(t, "clip", clip, []cut{
		{"abcdef", 4, "abc…"},
		{strings.Repeat("日", 80), 75, strings.Repeat("日", 74) + "…"}, // 75 characters: runes, not bytes
		{"abc", 3, "abc"},
	})
}

func TestWhen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{time.Date(2026, 12, 1, 14, 0, 0, 0, time.UTC), "|14:00 UTC>"},
		{time.Date(2026, 12, 1, 23, 0, 0, 0, time.FixedZone("CET", 3600)), "|22:00 UTC>"},
		{time.Date(2026, 12, 2, 9, 30, 0, 0, time.UTC), "|Dec 2, 09:30 UTC>"},
		{time.Date(2027, 1, 2, 9, 30, 0, 0, time.UTC), "|Jan 2 2027, 09:30 UTC>"},
	} {
		got := when(tc.t, now)
		if !strings.HasPrefix(got, "<!date^") || !strings.HasSuffix(got, tc.want) {
			t.Errorf("when(%v) = %q, want the fallback %q", tc.t, got, tc.want)
		}
	}
}

func TestUnescapeHTML(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"a":"\u003c!date\u003e \u0026"}`: `{"a":"<!date> &"}`,
		`{"a":"\\u003c"}`:                  `{"a":"\\u003c"}`,
		`{"a":"\"\u003e"}`:                 `{"a":"\">"}`,
		`{"a":"\u00e9"}`:                   `{"a":"\u00e9"}`,
	} {
		if got := string(unescapeHTML([]byte(in))); got != want {
			t.Errorf("unescapeHTML(%s) = %s, want %s", in, got, want)
		}
	}
}
