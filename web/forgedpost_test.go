package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestForgedLinkRefusedBeforeItsFormIsRead: a POST to a link the bot never signed is refused as
// a forgery, whatever its body: the body, here no form at all, is never read.
func TestForgedLinkRefusedBeforeItsFormIsRead(t *testing.T) {
	each(t, func(t *testing.T, dbURL string) {
		b := setup(t, dbURL)
		q := b.merge()
		m := b.mint(q.Key, "alice@example.com")
		forged := m.URL[:len(m.URL)-2] + "AA"
		if forged == m.URL {
			forged = m.URL[:len(m.URL)-2] + "BB"
		}
		req, err := http.NewRequest("POST", b.abs(forged), strings.NewReader("%%%not a form"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", b.url)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		p := readPage(t, resp)
		require.Equal(t, http.StatusNotFound, p.status, p.body)
		require.Contains(t, p.body, "not one the bot made")
		require.Equal(t, "pending", b.get(q.Key).Status)
	})
}
