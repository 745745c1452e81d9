package gateway_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/inquiry-bot/bot/inquiry"
)

// Bad input: every refusal is one error sentence with the right status, code and field, and
// leaves every inquiry and run as it was. docs/RELIABILITY.md ("Bad input") lists these.

// refusal is one bad request and what the server must answer.
type refusal struct {
	name   string
	method string // POST when empty
	path   string // /v1/inquiries when empty
	token  func(*bundle) string
	body   any
	status int
	code   inquiry.Code
	field  string // "" when the refusal names no field
	says   string // a fragment of the sentence
}

// world is a store with something in it to leave alone: a pending choice, a pending text, a run
// of team-a waiting on a confirm, and a pending choice of team-b.
type world struct {
	choice, text, waiting, other string // keys
}

func populate(t *testing.T, b *bundle) world {
	t.Helper()
	var w world
	w.choice = str(b.ask(b.askA, choice("deploy-42:merge", "run_id", "deploy-42"), http.StatusCreated)["key"])
	w.text = str(b.ask(b.askA, map[string]any{"id": "why", "kind": "text", "question": "Why?"}, http.StatusCreated)["key"])
	r := b.do("POST", "/v1/runs/nightly/ask", b.askA, confirm("nightly:go"))
	require.Equal(t, http.StatusAccepted, r.status, "body: %s", r.body)
	w.waiting = str(r.json(t)["inquiry"].(map[string]any)["key"])
	w.other = str(b.ask(b.askB, choice("merge"), http.StatusCreated)["key"])
	return w
}

// refuse sends each bad request and checks its refusal, and that nothing changed.
func refuse(t *testing.T, b *bundle, cases []refusal) {
	t.Helper()
	before := b.snapshot()
	for _, c := range cases {
		method, path, token := c.method, c.path, b.askA
		if method == "" {
			method = "POST"
		}
		if path == "" {
			path = "/v1/inquiries"
		}
		if c.token != nil {
			token = c.token(b)
		}
		r := b.do(method, path, token, c.body)
		require.Equal(t, c.status, r.status, "%s: %s", c.name, r.body)
		e := r.errorOf(t, c.status, c.code)
		require.Equal(t, c.field, str(nilToEmpty(e["field"])), "%s: field of %s", c.name, r.body)
		msg := str(e["message"])
		require.Contains(t, msg, c.says, c.name)
		requireOneSentence(t, c.name, msg)
		if testing.Verbose() {
			t.Logf("%-44s %d %-16s %-22s %s", c.name, r.status, c.code, c.field, msg)
		}
	}
	require.Equal(t, before, b.snapshot(), "a refused request changed the store")
}

func nilToEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// requireOneSentence checks a refusal is one sentence on one line.
func requireOneSentence(t *testing.T, name, msg string) {
	t.Helper()
	require.NotEmpty(t, msg, name)
	require.NotContains(t, msg, "\n", name)
	require.Equal(t, strings.TrimSpace(msg), msg, name)
	require.NotContains(t, msg, ". ", "%s: one sentence: %s", name, msg)
}

func TestBadJSON(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		valid := `{"id": "a", "kind": "choice", "question": "Merge?", "options": ["merge", "hold"], "default": "hold"}`
		var cases []refusal
		// Every cut of a valid body is refused: a cut never reads as a shorter valid request.
		for i := 1; i < len(valid); i++ {
			cases = append(cases, refusal{name: fmt.Sprintf("cut after %d bytes", i), body: valid[:i],
				status: 400, code: inquiry.CodeBadRequest, says: "the request body"})
		}
		for _, c := range []struct{ name, body, says string }{
			{"not JSON", "hello", "not valid JSON"},
			{"form encoded", "id=a&kind=text", "not valid JSON"},
			{"empty", "", "empty"},
			{"blanks", " \n\t ", "empty"},
			{"null", "null", "null"},
			{"a list", `[{"id": "a"}]`, "a list, not a JSON object"},
			{"a string", `"id"`, "a string, not a JSON object"},
			{"a number", `42`, "a number, not a JSON object"},
			{"true", `true`, "true or false, not a JSON object"},
			{"two objects", valid + valid, "not valid JSON"},
			{"trailing garbage", valid + " x", "not valid JSON"},
			{"trailing comma", `{"id": "a",}`, "not valid JSON"},
			{"single quotes", `{'id': 'a'}`, "not valid JSON"},
			{"comment", `{"id": "a" /* x */}`, "not valid JSON"},
			{"unquoted key", `{id: "a"}`, "not valid JSON"},
			{"NaN", `{"wait": NaN}`, "not valid JSON"},
			{"raw newline in a string", "{\"question\": \"a\nb\"}", "not valid JSON"},
			{"raw tab in a string", "{\"question\": \"a\tb\"}", "not valid JSON"},
			{"raw NUL in a string", "{\"question\": \"a\x00b\"}", "not valid JSON"},
			{"bad escape", `{"question": "a\qb"}`, "not valid JSON"},
			{"short unicode escape", `{"question": "a\u12"}`, "not valid JSON"},
			{"byte order mark", "\ufeff" + valid, "not valid JSON"},
			{"deep nesting", strings.Repeat("[", 100000) + strings.Repeat("]", 100000), "not valid JSON"},
		} {
			cases = append(cases, refusal{name: c.name, body: c.body, status: 400, code: inquiry.CodeBadRequest, says: c.says})
		}
		// The same decoder reads every body.
		for _, path := range []string{"/v1/inquiries/" + w.choice + "/answer", "/v1/runs", "/v1/runs/nightly/resume", "/v1/runs/nightly/finish", "/v1/runs/nightly/ask"} {
			tok := func(b *bundle) string { return b.askA }
			if strings.HasSuffix(path, "/answer") {
				tok = func(b *bundle) string { return b.answerer }
			}
			cases = append(cases,
				refusal{name: "truncated to " + path, path: path, token: tok, body: `{"value": "mer`, status: 400, code: inquiry.CodeBadRequest, says: "cut short"},
				refusal{name: "not JSON to " + path, path: path, token: tok, body: `value=merge`, status: 400, code: inquiry.CodeBadRequest, says: "not valid JSON"},
				refusal{name: "a list to " + path, path: path, token: tok, body: `[]`, status: 400, code: inquiry.CodeBadRequest, says: "not a JSON object"},
			)
		}
		refuse(t, b, cases)
	})
}

func TestWrongTypes(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		// Every field of every body, sent with a type it does not take, is refused naming it.
		type field struct {
			name  string
			wrong any
			field string // as named in the refusal
			says  string
		}
		asks := []field{
			{"id", 42, "id", "id must be a string, not a number"},
			{"run_id", []any{"r"}, "run_id", "run_id must be a string, not a list"},
			{"kind", true, "kind", "kind must be a string, not true or false"},
			{"question", map[string]any{"text": "Q?"}, "question", "question must be a string, not an object"},
			{"context", 1.5, "context", "context must be a string, not a number"},
			{"options", "merge,hold", "options", "options must be a list of options, not a string"},
			{"options", []any{"merge", 2}, "options", "an item of it is a number"},
			{"options", []any{"merge", []any{"hold"}}, "options", "options must be a list of options"},
			{"options", []any{map[string]any{"value": 1, "label": "One"}, "b"}, "options.value", "options.value must be a string, not a number"},
			{"multiple", "yes", "multiple", "multiple must be true or false, not a string"},
			{"multiple", 1, "multiple", "multiple must be true or false, not a number"},
			{"allow_text", "no", "allow_text", "allow_text must be true or false, not a string"},
			{"default", 5, "default", "string or a list of strings"},
			{"default", map[string]any{"value": "hold"}, "default", "string or a list of strings"},
			{"default", []any{"hold", 5}, "default", "string or a list of strings"},
			{"expires_at", 1767225600, "expires_at", "RFC 3339"},
			{"expires_at", "tomorrow", "expires_at", "RFC 3339"},
			{"expires_in", 3600, "expires_in", "expires_in must be a string, not a number"},
			{"config", "ask", "config", "config must be an object {policy, transport}, not a string"},
			{"config", map[string]any{"policy": 1}, "config.policy", "config.policy must be a string, not a number"},
			{"config", map[string]any{"transport": false}, "config.transport", "config.transport must be a string"},
			{"slack", "C1", "slack", "slack must be an object {channel, thread_ts, answerers}, not a string"},
			{"slack", map[string]any{"channel": 1}, "slack.channel", "slack.channel must be a string"},
			{"slack", map[string]any{"thread_ts": 1700000000.0001}, "slack.thread_ts", "slack.thread_ts must be a string, not a number"},
			{"slack", map[string]any{"answerers": "U1"}, "slack.answerers", "slack.answerers must be a list of strings"},
			{"slack", map[string]any{"answerers": []any{1}}, "slack.answerers", "slack.answerers must be a list of strings"},
			{"callback_url", map[string]any{"url": "https://x"}, "callback_url", "callback_url must be a string, not an object"},
			{"wait", "30", "wait", "wait must be a number, not a string"},
			{"wait", true, "wait", "wait must be a number"},
			// A wait out of bounds is bad_request too, as in the long-poll's ?wait=.
			{"wait", 55.5, "wait", "between 0 and 55"},
			{"wait", -0.1, "wait", "between 0 and 55"},
		}
		var cases []refusal
		for _, f := range asks {
			body := choice("typed", f.name, f.wrong)
			cases = append(cases, refusal{name: "ask " + f.name + " " + fmt.Sprintf("%T", f.wrong), body: body,
				status: 400, code: inquiry.CodeBadRequest, field: f.field, says: f.says})
			cases = append(cases, refusal{name: "ask in run " + f.name + " " + fmt.Sprintf("%T", f.wrong), path: "/v1/runs/nightly/ask", body: body,
				status: 400, code: inquiry.CodeBadRequest, field: f.field, says: f.says})
		}
		answerer := func(b *bundle) string { return b.answerer }
		for _, f := range []field{
			{"value", 1, "value", "string or a list of strings"},
			{"value", map[string]any{"v": "merge"}, "value", "string or a list of strings"},
			{"text", []any{"merge"}, "text", "text must be a string, not a list"},
			{"declined", "yes", "declined", "declined must be true or false, not a string"},
		} {
			cases = append(cases, refusal{name: "answer " + f.name, path: "/v1/inquiries/" + w.choice + "/answer", token: answerer,
				body: map[string]any{f.name: f.wrong}, status: 400, code: inquiry.CodeBadRequest, field: f.field, says: f.says})
		}
		for _, f := range []field{
			{"id", 7, "id", "id must be a string, not a number"},
			{"config", []any{}, "config", "config must be an object"},
			{"resume_url", false, "resume_url", "resume_url must be a string"},
		} {
			cases = append(cases, refusal{name: "run " + f.name, path: "/v1/runs", body: map[string]any{f.name: f.wrong},
				status: 400, code: inquiry.CodeBadRequest, field: f.field, says: f.says})
		}
		cases = append(cases,
			refusal{name: "resume answers a list", path: "/v1/runs/nightly/resume", body: map[string]any{"answers": []any{"yes"}},
				status: 400, code: inquiry.CodeBadRequest, field: "answers", says: "answers must be an object"},
			refusal{name: "resume answer a string", path: "/v1/runs/nightly/resume", body: map[string]any{"answers": map[string]any{"nightly:go": "yes"}},
				status: 400, code: inquiry.CodeBadRequest, field: "answers", says: "answers must be an object"},
			refusal{name: "resume answer declined a string", path: "/v1/runs/nightly/resume", body: map[string]any{"answers": map[string]any{"nightly:go": map[string]any{"declined": "no"}}},
				status: 400, code: inquiry.CodeBadRequest, field: "answers.declined", says: "answers.declined must be true or false, not a string"},
			refusal{name: "finish status a number", path: "/v1/runs/nightly/finish", body: map[string]any{"status": 1},
				status: 400, code: inquiry.CodeBadRequest, field: "status", says: "status must be a string, not a number"},
			refusal{name: "cancel with a field", path: "/v1/inquiries/" + w.choice + "/cancel", body: map[string]any{"reason": "x"},
				status: 400, code: inquiry.CodeBadRequest, field: "reason", says: "takes no fields"},
			refusal{name: "heartbeat with a field", path: "/v1/runs/nightly/heartbeat", body: map[string]any{"at": "now"},
				status: 400, code: inquiry.CodeBadRequest, field: "at", says: "takes no fields"},
		)
		refuse(t, b, cases)
	})
}

// TestBodyLimitEdges: exactly 1 MiB is read and taken when it is otherwise valid; one byte more
// is too_large on every endpoint that reads a body, and nothing of it is stored.
func TestBodyLimitEdges(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		// pad fills a valid object with blanks (JSON allows them) to exactly n bytes.
		pad := func(obj string, n int) string {
			return obj[:len(obj)-1] + strings.Repeat(" ", n-len(obj)) + "}"
		}
		ask := `{"id": "exactly-1MiB", "kind": "text", "question": "Big?"}`
		body := pad(ask, MaxBody)
		require.Len(t, body, MaxBody)
		r := b.do("POST", "/v1/inquiries", b.askA, body)
		require.Equal(t, http.StatusCreated, r.status, "exactly 1 MiB, otherwise valid, is taken: %s", r.body)
		require.Equal(t, "exactly-1MiB", r.json(t)["id"])

		answerer := func(b *bundle) string { return b.answerer }
		var cases []refusal
		for _, c := range []struct {
			path  string
			token func(*bundle) string
			obj   string
		}{
			{"/v1/inquiries", nil, `{"id": "over-1MiB", "kind": "text", "question": "Big?"}`},
			{"/v1/inquiries/" + w.choice + "/answer", answerer, `{"value": "merge"}`},
			{"/v1/inquiries/" + w.choice + "/cancel", nil, `{}`},
			{"/v1/runs", nil, `{"id": "over-1MiB"}`},
			{"/v1/runs/nightly/ask", nil, `{"id": "over-1MiB", "kind": "text", "question": "Big?"}`},
			{"/v1/runs/nightly/resume", nil, `{"answers": {"nightly:go": {"value": "yes"}}}`},
			{"/v1/runs/nightly/heartbeat", nil, `{}`},
			{"/v1/runs/nightly/finish", nil, `{"status": "completed"}`},
		} {
			cases = append(cases, refusal{name: "1 MiB + 1 to " + c.path, path: c.path, token: c.token, body: pad(c.obj, MaxBody+1),
				status: 413, code: inquiry.CodeTooLarge, says: "1 MiB"})
			// Far over: refused without reading it all.
			cases = append(cases, refusal{name: "8 MiB to " + c.path, path: c.path, token: c.token, body: pad(c.obj, 8*MaxBody),
				status: 413, code: inquiry.CodeTooLarge, says: "1 MiB"})
		}
		refuse(t, b, cases)
	})
}

// TestEveryRuleThroughTheAPI breaks each rule of inquiry.Validate through POST /v1/inquiries: 422
// invalid_inquiry, the field, and a sentence that names the rule and the fix.
func TestEveryRuleThroughTheAPI(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		// A slack.channel posts to Slack too (fan-out): Slack is seated, showing nothing.
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk), withTransport(inquiry.TransportSlack, inquiry.Inbox{}))
		populate(t, b)
		opts := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = fmt.Sprintf("option %d", i+1)
			}
			return out
		}
		text := func(extra ...any) map[string]any {
			m := map[string]any{"id": "t", "kind": "text", "question": "Why?"}
			for i := 0; i+1 < len(extra); i += 2 {
				m[extra[i].(string)] = extra[i+1]
			}
			return m
		}
		del := func(m map[string]any, keys ...string) map[string]any {
			for _, k := range keys {
				delete(m, k)
			}
			return m
		}
		obj := func(kv ...string) map[string]any {
			m := map[string]any{}
			for i := 0; i+1 < len(kv); i += 2 {
				m[kv[i]] = kv[i+1]
			}
			return m
		}
		past := time.Now().Add(-time.Minute).UTC().Format(time.RFC3339)
		rules := []struct {
			name  string
			body  map[string]any
			field string
			says  string
		}{
			// id (absent or empty, the server derives it: TestAskWithoutIDDerivesOne)
			{"id of blanks", confirm("   "), "id", "only blanks"},
			{"id of a blank that shows as nothing", confirm("\u2800"), "id", "only blanks"},
			{"id 201 characters", confirm(strings.Repeat("i", 201)), "id", "at most 200"},
			{"id 201 characters of two bytes", confirm(strings.Repeat("é", 201)), "id", "201 characters long"},
			{"id with a newline", confirm("a\nb"), "id", "unprintable character U+000A"},
			{"id with a tab", confirm("a\tb"), "id", "unprintable character U+0009"},
			{"id with ESC", confirm("a\x1b[31mb"), "id", "unprintable character U+001B"},
			{"id with DEL", confirm("a\x7fb"), "id", "unprintable character U+007F"},
			{"id with a zero-width space", confirm("a\u200bb"), "id", "unprintable character U+200B"},
			{"id with a right-to-left override", confirm("a\u202eb"), "id", "unprintable character U+202E"},
			// run_id
			{"run_id 201 characters", confirm("a", "run_id", strings.Repeat("r", 201)), "run_id", "at most 200"},
			{"run_id with a newline", confirm("a", "run_id", "r\n1"), "run_id", "unprintable"},
			{"run_id with a BEL", confirm("a", "run_id", "r\a"), "run_id", "unprintable"},
			// kind
			{"kind missing", del(confirm("a"), "kind"), "kind", "kind is required"},
			{"kind unknown", confirm("a", "kind", "poll"), "kind", "not one of choice, text or confirm"},
			{"kind in capitals", confirm("a", "kind", "CONFIRM"), "kind", "not one of choice, text or confirm"},
			// question
			{"question missing", del(confirm("a"), "question"), "question", "question is required"},
			{"question blank", confirm("a", "question", " \n\t "), "question", "question is required"},
			{"question 2001 characters", confirm("a", "question", strings.Repeat("q", 2001)), "question", "at most 2000"},
			{"question 2001 emoji", confirm("a", "question", strings.Repeat("😀", 2001)), "question", "2001 characters long"},
			{"question with ESC", confirm("a", "question", "Deploy?\x1b[2J"), "question", "control character U+001B"},
			{"question with a C1 control", confirm("a", "question", "Deploy?\u0085"), "question", "control character U+0085"},
			// context
			{"context 2001 characters", confirm("a", "context", strings.Repeat("c", 2001)), "context", "at most 2000"},
			{"context with a backspace", confirm("a", "context", "a\bb"), "context", "control character U+0008"},
			// options
			{"choice without options", del(choice("a"), "options", "default"), "options", "a choice needs options"},
			{"choice with empty options", del(choice("a", "options", []any{}), "default"), "options", "a choice needs options"},
			{"choice with one option", del(choice("a", "options", []any{"merge"}), "default"), "options", "at least 2"},
			{"choice with 13 options", del(choice("a", "options", opts(13)), "default"), "options", "at most 12"},
			{"option value and label empty", choice("a", "options", []any{obj("value", "", "label", ""), "hold"}), "options[0].value", "empty"},
			{"option value blank", choice("a", "options", []any{obj("value", "  ", "label", "Merge"), "hold"}), "options[0].value", "empty"},
			{"option label blank", choice("a", "options", []any{obj("value", "merge", "label", " \t "), "hold"}), "options[0].label", "empty"},
			{"option bare string empty", choice("a", "options", []any{"merge", ""}), "options[1].value", "empty"},
			{"option value 151 characters", choice("a", "options", []any{obj("value", strings.Repeat("v", 151), "label", "V"), "hold"}), "options[0].value", "at most 150"},
			{"option label 76 characters", choice("a", "options", []any{obj("value", "v", "label", strings.Repeat("l", 76)), "hold"}), "options[0].label", "at most 75"},
			{"option description 76 characters", choice("a", "options", []any{obj("value", "merge", "label", "Merge", "description", strings.Repeat("d", 76)), "hold"}), "options[0].description", "at most 75"},
			{"option label with a newline", choice("a", "options", []any{obj("value", "merge", "label", "Mer\nge"), "hold"}), "options[0].label", "keep an option on one line"},
			{"option value with a tab", choice("a", "options", []any{obj("value", "mer\tge", "label", "Merge"), "hold"}), "options[0].value", "control character U+0009"},
			{"option description with a CR", choice("a", "options", []any{obj("value", "merge", "label", "Merge", "description", "a\rb"), "hold"}), "options[0].description", "contains a carriage return (U+000D)"},
			{"values equal but for case", del(choice("a", "options", []any{obj("value", "Merge", "label", "One"), obj("value", "merge", "label", "Two")}), "default"), "options[1].value", "repeats"},
			{"values equal but for blanks", del(choice("a", "options", []any{obj("value", "merge", "label", "One"), obj("value", " merge ", "label", "Two")}), "default"), "options[1].value", "repeats"},
			{"labels equal but for case and blanks", del(choice("a", "options", []any{obj("value", "a", "label", "Merge"), obj("value", "b", "label", " MERGE")}), "default"), "options[1].label", "repeats"},
			{"options on a text", text("options", []any{"a", "b"}), "options", "only for a choice"},
			{"options on a confirm", confirm("a", "options", []any{"yes", "no"}), "options", "only for a choice"},
			// multiple, allow_text
			{"multiple on a confirm", confirm("a", "multiple", true), "multiple", "only for a choice"},
			{"multiple on a text", text("multiple", true), "multiple", "only for a choice"},
			{"allow_text on a text", text("allow_text", true), "allow_text", "already answered in words"},
			// default
			{"default not an option", choice("a", "default", "ship"), "default", "not one of the option values"},
			{"default a label, not a value", choice("a", "default", "Merge"), "default", "not one of the option values"},
			{"default a list on a single choice", choice("a", "default", []any{"merge", "hold"}), "default", "takes one answer"},
			{"default names an option twice", choice("a", "multiple", true, "default", []any{"hold", "hold"}), "default", "twice"},
			{"default of a multiple not an option", choice("a", "multiple", true, "default", []any{"hold", "ship"}), "default", "not one of the option values"},
			{"confirm default maybe", confirm("a", "default", "maybe"), "default", "neither \"yes\" nor \"no\""},
			{"confirm default a list", confirm("a", "default", []any{"yes"}), "default", "not a list"},
			{"text default a list", text("default", []any{"x"}), "default", "not a list"},
			{"text default 2001 characters", text("default", strings.Repeat("d", 2001)), "default", "at most 2000"},
			{"text default with ESC", text("default", "\x1b]0;pwned\a"), "default", "control character"},
			// expiry
			{"expires_at in the past", confirm("a", "expires_at", past), "expires_at", "not in the future"},
			{"expires_in negative", confirm("a", "expires_in", "-5m"), "expires_in", "does not lie in the future"},
			{"expires_in zero", confirm("a", "expires_in", "0s"), "expires_in", "does not lie in the future"},
			{"expires_in not a duration", confirm("a", "expires_in", "tomorrow"), "expires_in", "not a duration"},
			{"expires_in in days", confirm("a", "expires_in", "2d"), "expires_in", "not a duration"},
			{"both expiries", confirm("a", "expires_in", "2h", "expires_at", time.Now().Add(time.Hour).Format(time.RFC3339)), "expires_in", "not both"},
			// how to ask
			{"policy unknown", confirm("a", "config", askPolicy("maybe")), "config.policy", "ask, default or refuse"},
			{"slack channel with a blank", confirm("a", "slack", map[string]any{"channel": "C1 C2"}), "slack.channel", "no Slack id has"},
			{"slack thread_ts with a newline", confirm("a", "slack", map[string]any{"thread_ts": "1700000000.0001\n"}), "slack.thread_ts", "no Slack id has"},
			{"slack answerer empty", confirm("a", "slack", map[string]any{"answerers": []any{"U0ALICE01", ""}}), "slack.answerers[1]", "is empty"},
			{"slack answerer with a control character", confirm("a", "slack", map[string]any{"answerers": []any{"U0ALICE01\x1b"}}), "slack.answerers[0]", "no Slack id has"},
			{"slack channel 256 characters", confirm("a", "slack", map[string]any{"channel": strings.Repeat("C", 256)}), "slack.channel", "at most 255"},
			{"callback not a URL", confirm("a", "callback_url", "not a url"), "callback_url", "absolute http or https URL"},
			{"callback relative", confirm("a", "callback_url", "/hooks/inquiry"), "callback_url", "absolute http or https URL"},
			{"callback javascript", confirm("a", "callback_url", "javascript:alert(1)"), "callback_url", "absolute http or https URL"},
			{"callback file", confirm("a", "callback_url", "file:///etc/passwd"), "callback_url", "absolute http or https URL"},
		}
		var cases []refusal
		for _, r := range rules {
			cases = append(cases, refusal{name: r.name, body: r.body, status: 422, code: inquiry.CodeInvalidInquiry, field: r.field, says: r.says})
		}
		refuse(t, b, cases)

		// The edges of each length are taken, counted in characters.
		for i, body := range []map[string]any{
			confirm(strings.Repeat("é", 200)),
			confirm("a", "run_id", strings.Repeat("😀", 200)),
			confirm("b", "question", strings.Repeat("😀", 2000), "context", strings.Repeat("é", 2000)),
			choice("c", "options", opts(12), "default", nil),
			choice("d", "options", []any{obj("value", strings.Repeat("v", 150), "label", strings.Repeat("l", 75), "description", strings.Repeat("d", 75)), "hold"}),
			text("default", strings.Repeat("é", 2000)),
			confirm("e", "wait", 0, "slack", map[string]any{"channel": strings.Repeat("C", 255)}),
		} {
			r := b.do("POST", "/v1/inquiries", b.askA, body)
			require.Contains(t, []int{200, 201}, r.status, "edge %d: %s", i, r.body)
		}
	})
}

// TestUnicodeAndControlCharacters sends ids and text with raw invalid UTF-8, escaped lone
// surrogates, NUL and other control characters. Invalid UTF-8 is refused, never replaced: Go's
// encoding/json would turn it into U+FFFD, so that two different ids became one. NUL is refused
// in every field (PostgreSQL cannot store it). Other control characters are refused where
// inquiry.Validate's rules refuse them (ids, question, context, options, defaults, answer text).
func TestUnicodeAndControlCharacters(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		answerer := func(b *bundle) string { return b.answerer }
		admin := func(b *bundle) string { return b.admin }
		raw := func(field, value string) string { // a body with value as the raw bytes of a field
			return `{"id": "u", "kind": "confirm", "question": "Go?", ` + field + `: "` + value + `"}`
		}
		cases := []refusal{
			{name: "raw invalid UTF-8 in id", body: "{\"id\": \"a\xff\", \"kind\": \"confirm\", \"question\": \"Go?\"}", status: 422, code: inquiry.CodeInvalidInquiry, field: "id", says: "not valid UTF-8 (byte 9 "},
			{name: "raw invalid UTF-8 in question", body: raw(`"context"`, "caf\xe9"), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: "not valid UTF-8"},
			{name: "raw overlong encoding", body: raw(`"context"`, "\xc0\xaf"), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: "not valid UTF-8"},
			{name: "raw UTF-8 encoded surrogate", body: raw(`"context"`, "\xed\xa0\x80"), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: "not valid UTF-8"},
			{name: "raw truncated sequence", body: raw(`"context"`, "\xe2\x82"), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: "not valid UTF-8"},
			{name: "raw invalid UTF-8 in a key", body: "{\"id\xff\": \"a\"}", status: 400, code: inquiry.CodeBadRequest, says: "not valid UTF-8"},
			{name: "raw invalid UTF-8 in answer text", path: "/v1/inquiries/" + w.text + "/answer", token: answerer, body: "{\"text\": \"because\xff\"}", status: 422, code: inquiry.CodeInvalidAnswer, field: "text", says: "not valid UTF-8"},
			{name: "lone high surrogate in id", body: `{"id": "a\ud800", "kind": "confirm", "question": "Go?"}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "id", says: `\ud800, half of a UTF-16 surrogate pair`},
			{name: "lone low surrogate in question", body: raw(`"context"`, `x\udc00y`), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: `\udc00`},
			{name: "reversed surrogate pair", body: raw(`"context"`, `\ude00\ud83d`), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: `\ude00`},
			{name: "high surrogate then a letter", body: raw(`"context"`, `\ud83dx`), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: `\ud83d`},
			{name: "lone surrogate in an option", body: `{"id": "u", "kind": "choice", "question": "Go?", "options": ["\ud800", "b"]}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "options", says: `\ud800`},
			{name: "lone surrogate in answer text", path: "/v1/inquiries/" + w.text + "/answer", token: answerer, body: `{"text": "\udfff"}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "text", says: `\udfff`},
			{name: "NUL in id", body: `{"id": "a\u0000", "kind": "confirm", "question": "Go?"}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "id", says: "NUL"},
			{name: "NUL in question", body: raw(`"context"`, `a\u0000`), status: 422, code: inquiry.CodeInvalidInquiry, field: "context", says: "NUL"},
			{name: "NUL in slack.channel", body: `{"id": "u", "kind": "confirm", "question": "Go?", "slack": {"channel": "C\u0000"}}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "slack", says: "NUL"},
			{name: "NUL in slack.answerers", body: `{"id": "u", "kind": "confirm", "question": "Go?", "slack": {"answerers": ["U1\u0000"]}}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "slack", says: "NUL"},
			{name: "NUL in config.transport", body: `{"id": "u", "kind": "confirm", "question": "Go?", "config": {"policy": "default", "transport": "inbox\u0000"}}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "config", says: "NUL"},
			{name: "NUL in callback_url", body: raw(`"callback_url"`, `https://example.com/\u0000`), status: 422, code: inquiry.CodeInvalidInquiry, field: "callback_url", says: "NUL"},
			{name: "NUL in expires_in", body: raw(`"expires_in"`, `1h\u0000`), status: 422, code: inquiry.CodeInvalidInquiry, field: "expires_in", says: "NUL"},
			{name: "NUL in answer text", path: "/v1/inquiries/" + w.text + "/answer", token: answerer, body: `{"text": "ok\u0000"}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "text", says: "NUL"},
			{name: "NUL in answer value", path: "/v1/inquiries/" + w.choice + "/answer", token: answerer, body: `{"value": "merge\u0000"}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "value", says: "NUL"},
			{name: "NUL in a run id", path: "/v1/runs", body: `{"id": "r\u0000"}`, status: 400, code: inquiry.CodeBadRequest, field: "id", says: "NUL"},
			{name: "NUL in a resume answer", path: "/v1/runs/nightly/resume", body: `{"answers": {"nightly:go": {"text": "\u0000"}}}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "answers", says: "NUL"},
			{name: "NUL in a finish status", path: "/v1/runs/nightly/finish", body: `{"status": "completed\u0000"}`, status: 400, code: inquiry.CodeBadRequest, field: "status", says: "NUL"},
			{name: "escaped ESC in answer text", path: "/v1/inquiries/" + w.text + "/answer", token: answerer, body: `{"text": "ok\u001b[2J"}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "text", says: "control character U+001B"},
			{name: "escaped BEL in answer text", path: "/v1/inquiries/" + w.text + "/answer", token: answerer, body: `{"text": "ok\u0007"}`, status: 422, code: inquiry.CodeInvalidAnswer, field: "text", says: "control character U+0007"},
			{name: "control character in a run id", path: "/v1/runs", body: `{"id": "r\u0001"}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "id", says: "unprintable"},
			{name: "control character in slack.thread_ts", body: `{"id": "u", "kind": "confirm", "question": "Go?", "slack": {"thread_ts": "1\u0001"}}`, status: 422, code: inquiry.CodeInvalidInquiry, field: "slack.thread_ts", says: "no Slack id has"},
			// Path parameters and query values: no key, id or cursor has such text.
			{name: "key %00", method: "GET", path: "/v1/inquiries/%00", status: 404, code: inquiry.CodeNotFound, says: "no inquiry has the key"},
			{name: "key %FF", method: "GET", path: "/v1/inquiries/inq_%FF", status: 404, code: inquiry.CodeNotFound, says: "no inquiry has the key"},
			{name: "key with a newline, answered", path: "/v1/inquiries/inq_%0A/answer", token: answerer, body: `{"value": "merge"}`, status: 404, code: inquiry.CodeNotFound, says: "no inquiry has the key"},
			{name: "key %FF, cancelled", path: "/v1/inquiries/%FF/cancel", status: 404, code: inquiry.CodeNotFound, says: "no inquiry has the key"},
			{name: "run %00", method: "GET", path: "/v1/runs/%00", status: 404, code: inquiry.CodeNotFound, says: "no run has the id"},
			{name: "run %FF heartbeat", path: "/v1/runs/r%FF/heartbeat", status: 404, code: inquiry.CodeNotFound, says: "no run has the id"},
			{name: "run %1B resume", path: "/v1/runs/r%1B/resume", body: `{"answers": {}}`, status: 404, code: inquiry.CodeNotFound, says: "no run has the id"},
			{name: "run %00 finish", path: "/v1/runs/%00/finish", body: `{"status": "failed"}`, status: 404, code: inquiry.CodeNotFound, says: "no run has the id"},
			{name: "run %00 ask", path: "/v1/runs/%00/ask", body: confirm("x"), status: 422, code: inquiry.CodeInvalidInquiry, field: "run_id", says: "unprintable"},
			{name: "run %FF ask", path: "/v1/runs/r%FF/ask", body: confirm("x"), status: 422, code: inquiry.CodeInvalidInquiry, field: "run_id", says: "not valid UTF-8"},
			{name: "list run_id %00", method: "GET", path: "/v1/inquiries?run_id=%00", status: 400, code: inquiry.CodeBadRequest, field: "run_id", says: "control character"},
			{name: "list run_id %FF", method: "GET", path: "/v1/inquiries?run_id=%FF", status: 400, code: inquiry.CodeBadRequest, field: "run_id", says: "not valid UTF-8"},
			{name: "list status with NUL", method: "GET", path: "/v1/inquiries?status=pending%00", status: 400, code: inquiry.CodeBadRequest, field: "status", says: "control character"},
			{name: "list runs namespace %00", method: "GET", path: "/v1/runs?namespace=%00", token: admin, status: 400, code: inquiry.CodeBadRequest, field: "namespace", says: "control character"},
			{name: "wait with NUL", method: "GET", path: "/v1/inquiries/" + w.choice + "?wait=1%00", status: 400, code: inquiry.CodeBadRequest, field: "wait", says: "control character"},
			{name: "cursor not one given out", method: "GET", path: "/v1/inquiries?cursor=bm9wZQ", status: 400, code: inquiry.CodeBadRequest, field: "cursor", says: "not one this server gave out"},
		}
		refuse(t, b, cases)

		// Valid Unicode is stored as sent: a surrogate pair, astral characters, right-to-left
		// text, combining marks; tabs and newlines where prose takes them.
		body := `{"id": "ünï-😀", "kind": "text", "question": "Ship \ud83d\ude80 now?\n\tReally?", "context": "שלום e\u0301"}`
		r := b.do("POST", "/v1/inquiries", b.askA, body)
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		got := r.json(t)
		require.Equal(t, "ünï-😀", got["id"])
		require.Equal(t, "Ship 🚀 now?\n\tReally?", got["question"])
		require.Equal(t, "שלום e\u0301", got["context"])
		r = b.do("POST", "/v1/inquiries/"+str(got["key"])+"/answer", b.answerer, map[string]any{"text": "because\r\n\tit works ✓"})
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Equal(t, "because\n\tit works ✓", r.json(t)["answer"].(map[string]any)["text"], "a CR LF is a newline: no script is handed a carriage return")
	})
}

// TestBadAnswersChangeNothing: answers that are none of the offered ones, of the wrong shape, or
// too late are refused with a sentence naming the offered answers, and nothing is recorded.
func TestBadAnswersChangeNothing(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		multi := str(b.ask(b.askA, choice("pick", "multiple", true, "default", nil), http.StatusCreated)["key"])
		own := str(b.ask(b.askA, confirm("tag", "allow_text", true), http.StatusCreated)["key"])
		done := str(b.ask(b.askA, choice("done"), http.StatusCreated)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+done+"/answer", b.answerer, map[string]any{"value": "merge"}).status)
		cancelled := str(b.ask(b.askA, choice("gone"), http.StatusCreated)["key"])
		require.Equal(t, 200, b.do("POST", "/v1/inquiries/"+cancelled+"/cancel", b.askA, nil).status)

		answerer := func(b *bundle) string { return b.answerer }
		answer := func(name, key string, body any, status int, code inquiry.Code, field, says string) refusal {
			return refusal{name: name, path: "/v1/inquiries/" + key + "/answer", token: answerer, body: body,
				status: status, code: code, field: field, says: says}
		}
		const bad = inquiry.CodeInvalidAnswer
		refuse(t, b, []refusal{
			answer("value matching no option", w.choice, map[string]any{"value": "ship"}, 422, bad, "value", `"ship" is none of the offered answers`),
			answer("value that contains an option", w.choice, map[string]any{"value": "merge now"}, 422, bad, "value", "none of the offered answers"),
			answer("value forged with an option's prefix", w.choice, map[string]any{"value": "mergeX"}, 422, bad, "value", "none of the offered answers"),
			answer("a list on a single choice", w.choice, map[string]any{"value": []any{"merge", "hold"}}, 422, bad, "value", "takes one answer, not a list"),
			answer("an empty list", w.choice, map[string]any{"value": []any{}}, 422, bad, "value", "takes one answer, not a list"),
			answer("an empty list on a multiple", multi, map[string]any{"value": []any{}}, 422, bad, "value", "choose at least one"),
			answer("text on a choice without allow_text", w.choice, map[string]any{"text": "merge it after lunch"}, 422, bad, "text", "takes no answer in other words"),
			answer("value and words on a choice without allow_text", w.choice, map[string]any{"value": "merge", "text": "after lunch"}, 422, bad, "text", "does not take words beside the choice"),
			answer("nothing at all", w.choice, map[string]any{}, 422, bad, "value", "choose one of the offered answers"),
			answer("blank text", w.choice, map[string]any{"text": "   "}, 422, bad, "value", "choose one of the offered answers"),
			answer("declined and a value", w.choice, map[string]any{"declined": true, "value": "merge"}, 422, bad, "declined", "either declined or a value"),
			answer("a multiple with one unknown value", multi, map[string]any{"value": []any{"merge", "ship"}}, 422, bad, "value", `"ship" is none`),
			answer("confirm maybe", w.waiting, map[string]any{"value": "maybe"}, 422, bad, "value", `"maybe" is none`),
			answer("confirm in words without allow_text", w.waiting, map[string]any{"text": "probably"}, 422, bad, "text", "none of the offered answers"),
			answer("a text question with a value and text", w.text, map[string]any{"value": "x", "text": "y"}, 422, bad, "value", "text alone"),
			answer("a text question with nothing", w.text, map[string]any{"text": ""}, 422, bad, "text", "needs an answer in words"),
			answer("a confirm with allow_text and a list", own, map[string]any{"value": []any{"yes", "no"}}, 422, bad, "value", "takes one answer"),
			answer("an answered inquiry", done, map[string]any{"value": "hold"}, 409, inquiry.CodeAlreadyResolved, "", "already"),
			answer("a cancelled inquiry", cancelled, map[string]any{"value": "hold"}, 409, inquiry.CodeAlreadyResolved, "", "cancelled"),
			answer("an unknown key", "inq_nosuchkey000000000", map[string]any{"value": "merge"}, 404, inquiry.CodeNotFound, "", "no inquiry has the key"),
			answer("an inquiry's id instead of its key", "deploy-42:merge", map[string]any{"value": "merge"}, 404, inquiry.CodeNotFound, "", "not the inquiry's id"),
		})
	})
}

// A body is JSON only when it says so (issue 14 item 8): a form, a multipart body or text/plain
// is refused with 415 unsupported_media_type, not parsed as JSON; a JSON name given twice is
// refused (400) rather than the last one winning.

// sendAs sends body with the Content-Type ct ("" sends none) and token.
func sendAs(t *testing.T, b *bundle, method, path, token, ct, body string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.url+path, rd)
	require.NoError(t, err)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := b.http.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return resp{status: res.StatusCode, header: res.Header, body: raw}
}

// bodies is every endpoint that reads a body, with a body it takes and the token to send it.
func bodies(b *bundle, w world) []struct{ path, token, body string } {
	return []struct{ path, token, body string }{
		{"/v1/inquiries", b.askA, `{"id": "typed", "kind": "confirm", "question": "Go?"}`},
		{"/v1/inquiries/" + w.choice + "/answer", b.answerer, `{"value": "merge"}`},
		{"/v1/inquiries/" + w.text + "/cancel", b.askA, `{}`},
		{"/v1/runs", b.askA, `{"id": "typed-run"}`},
		{"/v1/runs/nightly/ask", b.askA, `{"id": "typed", "kind": "confirm", "question": "Go?"}`},
		{"/v1/runs/nightly/resume", b.askA, `{"answers": {"nightly:go": {"value": "yes"}}}`},
		{"/v1/runs/nightly/heartbeat", b.askA, `{}`},
		{"/v1/runs/nightly/finish", b.askA, `{"status": "completed"}`},
	}
}

func TestBodyNotJSONRefused(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		w := populate(t, b)
		before := b.snapshot()
		for _, e := range bodies(b, w) {
			for _, c := range []struct{ ct, says string }{
				{"text/plain", `"text/plain"`},
				{"text/plain; charset=utf-8", `"text/plain"`},
				{"application/x-www-form-urlencoded", `"application/x-www-form-urlencoded"`},
				{"multipart/form-data; boundary=x", `"multipart/form-data"`},
				{"application/xml", `"application/xml"`},
				{"application/jsonx", `"application/jsonx"`},
				{"application/json; charset=iso-8859-1", "UTF-8"},
				{"not a media type", "no media type"},
				{"", "no Content-Type"},
			} {
				r := sendAs(t, b, "POST", e.path, e.token, c.ct, e.body)
				msg := r.errorOf(t, http.StatusUnsupportedMediaType, inquiry.CodeUnsupportedMediaType)["message"].(string)
				require.Contains(t, msg, c.says, "%s as %q", e.path, c.ct)
				require.Contains(t, msg, "Content-Type: application/json", "%s as %q: the sentence says the fix", e.path, c.ct)
			}
		}
		require.Equal(t, before, b.snapshot(), "a refused body changes nothing")
	})
}

func TestBodyJSONTaken(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	w := populate(t, b)
	for i, ct := range []string{"application/json", "application/json; charset=utf-8", `Application/JSON; Charset="UTF-8"`, "application/problem+json"} {
		id := strings.Repeat("x", i+1)
		r := sendAs(t, b, "POST", "/v1/inquiries", b.askA, ct, `{"id": "`+id+`", "kind": "confirm", "question": "Go?"}`)
		require.Equal(t, http.StatusCreated, r.status, "as %q: %s", ct, r.body)
	}
	// No body, with no Content-Type or any: nothing to read as the wrong thing.
	for _, ct := range []string{"", "text/plain"} {
		require.Equal(t, http.StatusOK, sendAs(t, b, "POST", "/v1/runs/nightly/heartbeat", b.askA, ct, "").status)
	}
	require.Equal(t, http.StatusOK, sendAs(t, b, "POST", "/v1/inquiries/"+w.text+"/cancel", b.askA, "", "").status)
}

func TestDuplicateNameRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	populate(t, b)
	before := b.snapshot()
	// A second config would switch the policy to default if the last one won.
	for _, path := range []string{"/v1/inquiries", "/v1/runs/nightly/ask"} {
		r := sendAs(t, b, "POST", path, b.askA, "application/json",
			`{"id": "dup", "kind": "confirm", "question": "Go?", "config": {"policy": "ask"}, "config": {"policy": "default"}}`)
		e := r.errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
		require.Equal(t, "config", e["field"])
		require.Contains(t, e["message"], `"config" is given twice`)
	}
	r := sendAs(t, b, "POST", "/v1/runs", b.askA, "application/json", `{"id": "r", "config": {"policy": "ask"}, "config": {"policy": "default"}}`)
	r.errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
	require.Equal(t, before, b.snapshot())
}

// An endpoint without fields says what to send instead of a list of no fields (issue 14 item 14).
func TestNoFieldsBodySentence(t *testing.T) {
	t.Parallel()
	b := setup(t, withPolicy(inquiry.PolicyAsk))
	w := populate(t, b)
	for _, path := range []string{"/v1/inquiries/" + w.text + "/cancel", "/v1/runs/nightly/heartbeat"} {
		for _, body := range []string{"null", "[]", `"x"`} {
			e := sendAs(t, b, "POST", path, b.askA, "application/json", body).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
			msg := e["message"].(string)
			require.NotContains(t, msg, "with the fields", "%s %s", path, body)
			require.True(t, strings.HasSuffix(msg, "send an empty JSON object {} or no body"), "%s %s: %s", path, body, msg)
		}
	}
}

// TestWaitOutOfBoundsIsOneAnswer: a wait outside 0..55 seconds is the same refusal wherever it is
// given — the long-poll's query, the ask's body, the ask inside a run — 400 bad_request on the
// field wait: wait is how long the request holds its connection, no rule of an inquiry
// (openapi.yaml: bad_request; 422 is for inquiry.Validate's rules). Before, the query said 400 and
// the bodies 422.
func TestWaitOutOfBoundsIsOneAnswer(t *testing.T) {
	each(t, func(t *testing.T, db string) {
		b := setup(t, withDB(db), withPolicy(inquiry.PolicyAsk))
		r := b.do("POST", "/v1/inquiries", b.askA, confirm("waits"))
		require.Equal(t, http.StatusCreated, r.status, "body: %s", r.body)
		key := str(r.json(t)["key"])
		require.Equal(t, http.StatusCreated, b.do("POST", "/v1/runs", b.askA, map[string]any{"id": "r1"}).status)
		before := b.snapshot()

		for _, wait := range []float64{56, -1, 55.5} {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"GET", fmt.Sprintf("/v1/inquiries/%s?wait=%g", key, wait), nil},
				{"POST", "/v1/inquiries", confirm("other", "wait", wait)},
				{"POST", "/v1/runs/r1/ask", confirm("step", "wait", wait)},
			} {
				e := b.do(req.method, req.path, b.askA, req.body).errorOf(t, http.StatusBadRequest, inquiry.CodeBadRequest)
				require.Equal(t, "wait", e["field"], "%s %s", req.method, req.path)
				require.Contains(t, e["message"], "between 0 and 55", "%s %s", req.method, req.path)
			}
		}
		require.Equal(t, before, b.snapshot(), "a refused wait stored something")
	})
}
