package storage_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
	"github.com/inquiry-bot/bot/storage/storagetest"
)

// TestEveryStringIsAParameter passes SQL-looking text as every string argument of the store —
// the fields of an inquiry, an answer, a run, a token and a setting, and every lookup and filter
// — and checks each comes back verbatim, finds exactly what it names (% and _ are no wildcards,
// ' closes nothing), and leaves the other rows and tables as they were.
func TestEveryStringIsAParameter(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, b *bundle) {
		ctx := context.Background()
		s := b.store
		bystander := create(t, s, newRecord("bystanders", "run", "untouched"))
		tok := &inquiry.Token{ID: "tok_keep", Name: "keep", Namespace: "ops", Scopes: []inquiry.Scope{inquiry.ScopeAdmin},
			SecretHash: []byte{1, 2, 3}, CreatedAt: t0}
		require.NoError(t, s.CreateToken(ctx, tok))

		for i, p := range storagetest.Injections {
			ns := "ns-" + p
			rec := newRecord(ns, p, fmt.Sprintf("%d:%s", i, p))
			rec.Question, rec.Context = "Is "+p+" safe?", p
			rec.Options = []inquiry.Option{{Value: p, Label: "L" + p, Description: p}, {Value: "other", Label: "Other"}}
			rec.Default = inquiry.One(p)
			rec.Slack = inquiry.SlackRef{Channel: "C" + p, ThreadTS: p, Answerers: []string{p}}
			rec.CallbackURL = "https://example.com/" + p
			got := create(t, s, rec)
			require.True(t, inquiry.SameContent(&rec.Inquiry, &got.Inquiry), "stored as given: %q", p)

			again, err := s.Inquiry(ctx, rec.Key)
			require.NoError(t, err)
			require.Equal(t, ns, again.Namespace)
			require.Equal(t, p, again.RunID)
			require.Equal(t, "C"+p, again.Slack.Channel)
			require.Equal(t, []string{p}, again.Slack.Answerers)
			require.Equal(t, rec.CallbackURL, again.CallbackURL)

			byID, err := s.InquiryByID(ctx, ns, p, rec.ID)
			require.NoError(t, err)
			require.Equal(t, rec.Key, byID.Key)

			// Filters find exactly it.
			list, _, err := s.ListInquiries(ctx, inquiry.ListFilter{Namespace: ns, RunID: p, Limit: 50})
			require.NoError(t, err)
			require.Len(t, list, 1, "namespace and run_id %q", p)
			list, _, err = s.ListInquiries(ctx, inquiry.ListFilter{RunID: p, Limit: 50})
			require.NoError(t, err)
			require.Len(t, list, 1, "run_id %q", p)

			// Lookups by it find nothing else.
			_, err = s.Inquiry(ctx, p)
			requireCode(t, err, inquiry.CodeNotFound)
			_, err = s.InquiryByID(ctx, p, p, p)
			requireCode(t, err, inquiry.CodeNotFound)
			ds, err := s.ListDeliveries(ctx, p)
			require.NoError(t, err)
			require.Empty(t, ds)

			// Posted, and found by a reply in its thread (its own message is the thread's root, and
			// its thread_ts is the same text: found once, by the thread).
			require.NoError(t, s.SetPosted(ctx, rec.Key, inquiry.SlackRef{Channel: "C" + p, TS: p, Permalink: "https://x/" + p}))
			found, err := s.PendingInThread(ctx, "C"+p, p, 20)
			require.NoError(t, err)
			require.Len(t, found, 1)
			require.Equal(t, rec.Key, found[0].Key)
			found, err = s.PendingInThread(ctx, p, p, 20)
			require.NoError(t, err)
			require.Empty(t, found)
			list, _, err = s.ListInquiries(ctx, inquiry.ListFilter{Channel: "C" + p, Limit: 50})
			require.NoError(t, err)
			require.Len(t, list, 1, "channel %q", p)

			// Answered with it.
			res, err := s.Resolve(ctx, rec.Key, inquiry.Resolution{Status: inquiry.StatusAnswered, At: t0,
				Answer: &inquiry.Answer{InquiryID: rec.ID, Value: inquiry.One(p), Text: p, AnsweredBy: p, Source: inquiry.SourcePerson, AnsweredAt: t0}})
			require.NoError(t, err)
			require.Equal(t, p, res.Answer.Text)
			require.Equal(t, p, res.Answer.AnsweredBy)

			// A run named by it, with answers keyed by it.
			run, err := s.PutRun(ctx, &inquiry.Run{ID: p, Namespace: ns, ResumeURL: "https://example.com/" + p,
				Config: &inquiry.Config{Policy: inquiry.PolicyAsk, Transport: p}}, t0)
			require.NoError(t, err)
			require.Equal(t, p, run.ID)
			run, err = s.RecordAnswers(ctx, ns, p, map[string]inquiry.Answer{p: {InquiryID: p, Text: p, Source: inquiry.SourcePerson, AnsweredAt: t0}}, "", t0)
			require.NoError(t, err)
			require.Equal(t, p, run.Answers[p].Text)
			_, err = s.Heartbeat(ctx, ns, p, t0.Add(time.Minute))
			require.NoError(t, err)
			runs, err := s.ListRuns(ctx, ns, "", 50)
			require.NoError(t, err)
			require.Len(t, runs, 1)
			_, err = s.Run(ctx, p, p)
			requireCode(t, err, inquiry.CodeNotFound)

			// A token and a setting named by it.
			require.NoError(t, s.CreateToken(ctx, &inquiry.Token{ID: fmt.Sprintf("tok_%d", i), Name: p, Namespace: p,
				Scopes: []inquiry.Scope{inquiry.ScopeAsk}, SecretHash: []byte(p), CreatedAt: t0}))
			tk, err := s.Token(ctx, fmt.Sprintf("tok_%d", i))
			require.NoError(t, err)
			require.Equal(t, p, tk.Name)
			require.Equal(t, []byte(p), tk.SecretHash)
			_, err = s.Token(ctx, p)
			requireCode(t, err, inquiry.CodeNotFound)
			require.NoError(t, s.RevokeToken(ctx, p, t0))
			requireCode(t, s.RevokeToken(ctx, p+"x", t0), inquiry.CodeNotFound)
			v, err := s.InitSetting(ctx, p, p)
			require.NoError(t, err)
			require.Equal(t, p, v)
		}

		// Nothing else changed.
		got, err := s.Inquiry(ctx, bystander.Key)
		require.NoError(t, err)
		require.Equal(t, inquiry.StatusPending, got.Status)
		require.True(t, inquiry.SameContent(&bystander.Inquiry, &got.Inquiry))
		kept, err := s.Token(ctx, "tok_keep")
		require.NoError(t, err)
		require.Nil(t, kept.RevokedAt, "revoking by an injected name revoked only that name")
		n, err := s.CountTokens(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "only tok_keep is not revoked")
		all, _, err := s.ListInquiries(ctx, inquiry.ListFilter{Limit: 500})
		require.NoError(t, err)
		require.Len(t, all, len(storagetest.Injections)+1)
		pending, err := s.CountPending(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, pending)
		for _, table := range []string{"inquiries", "runs", "deliveries", "tokens", "settings"} {
			var c int
			require.NoError(t, b.db.Get(&c, "SELECT count(*) FROM "+table), table)
		}
	})
}
