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

func TestShort(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		max  int
		want string
	}{
		{"hello", 10, "hello"},
		{"a  b\n c", 10, "a b c"},
		{"&&&&", 10, "&amp;…"},
		{"hello world", 8, "hello w…"},
		{"<<<", 12, "&lt;&lt;&lt;"},
		{"<<<<", 12, "&lt;&lt;…"},
		{"@here@here", 6, "@her…"},
	} {
		got := short(tc.s, tc.max)
		if got != tc.want {
			t.Errorf("short(%q, %d) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
		if utf8.RuneCountInString(got) > tc.max {
			t.Errorf("short(%q, %d) = %q: over its limit", tc.s, tc.max, got)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	if got := clip("abcdef", 4); got != "abc…" {
		t.Errorf("clip = %q", got)
	}
	if got := clip(strings.Repeat("日", 80), 75); utf8.RuneCountInString(got) != 75 {
		t.Errorf("clip to 75 gave %d characters", utf8.RuneCountInString(got))
	}
	if got := clip("abc", 3); got != "abc" {
		t.Errorf("clip = %q", got)
	}
}

func TestUntil(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		-time.Minute:                    "now",
		20 * time.Second:                "in less than a minute",
		45 * time.Minute:                "in 45m",
		2 * time.Hour:                   "in 2h",
		2*time.Hour - 20*time.Second:    "in 2h",
		2*time.Hour + 30*time.Minute:    "in 2h 30m",
		24 * time.Hour:                  "in 1d",
		3*24*time.Hour + 4*time.Hour:    "in 3d 4h",
		26*time.Hour + 30*time.Minute:   "in 1d 2h",
		90*time.Minute + 29*time.Second: "in 1h 30m",
	} {
		if got := until(d); got != want {
			t.Errorf("until(%v) = %q, want %q", d, got, want)
		}
	}
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
