package storage_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// TestProposalRoundTrip: a proposal of the full 256 KiB reads back byte for byte, and an answer
// with edited content keeps it beside the proposal, so both versions are on the record; an
// inquiry without a proposal reads back with none (null, not an empty object).
func TestProposalRoundTrip(t *testing.T) {
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		// Lines of a diff with what a store might mangle: tabs, CR LF, quotes, non-ASCII, U+2028.
		line := "+\tconst greeting = \"héllo\" // 👋 \u2028 <script>\r\n"
		content := strings.Repeat(line, inquiry.MaxProposalBytes/len(line))
		content += strings.Repeat("x", inquiry.MaxProposalBytes-len(content))
		rec := newRecord("ns", "", "proposed")
		rec.Proposal = &inquiry.Proposal{Format: inquiry.FormatDiff, Content: content, Title: "PR #42", Editable: true}
		got := create(t, b.store, rec)
		require.Equal(t, rec.Proposal, got.Proposal, "as created")

		edited := strings.Replace(content, "héllo", "hello", 1)
		a := personAnswer("proposed", "merge", t0.Add(time.Minute))
		a.Content, a.Edited = edited, true
		_, err := b.store.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, Answer: a, At: t0.Add(time.Minute)})
		require.NoError(t, err)
		read, err := b.store.Inquiry(ctx, rec.Key)
		require.NoError(t, err)
		require.Equal(t, content, read.Proposal.Content, "the proposed version, as proposed")
		require.Equal(t, inquiry.FormatDiff, read.Proposal.Format)
		require.True(t, read.Proposal.Editable)
		require.Equal(t, edited, read.Answer.Content, "the approved version, as approved")
		require.True(t, read.Answer.Edited)

		plain := create(t, b.store, newRecord("ns", "", "plain"))
		read, err = b.store.Inquiry(ctx, plain.Key)
		require.NoError(t, err)
		require.Nil(t, read.Proposal)
	})
}
