package inquiry

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Deadlines people notice (the README's Deadlines): reminders before the expiry, an escalation
// chain that widens who is asked, and more time when the asker allows it. The rules live here —
// what the fields may say, what is due next as a pure function of the record and now, who may
// answer after the escalation steps taken, and the one sentence that says how long is left — and
// the store and the dispatcher carry them out as durable work.

// Bounds of the deadline fields.
const (
	MaxReminders   = 5 // reminders before one expiry: more is nagging, not reminding
	MaxEscalations = 3 // steps of an escalation chain
)

// Duration is a Go duration as the wire writes it: "30m", "1h30m".
type Duration time.Duration

// D is d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String is the duration the way Go writes it, without a trailing "0s" where it needs none.
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a Go duration written as a string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30m\"")
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDuration reads a Go duration ("30m", "1h30m"), refusing anything else with a sentence.
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration: write it like \"30m\", \"2h\" or \"1h30m\"", OneLine(s, 40))
	}
	return Duration(v), nil
}

// Step is one step of an escalation chain: After the inquiry was created, the question is posted
// to Channel too (when named) and Answerers may answer it as well; Mention names them there.
type Step struct {
	After     Duration `json:"after"`
	Channel   string   `json:"channel,omitempty"`
	Answerers []string `json:"answerers,omitempty"`
	Mention   bool     `json:"mention,omitempty"`
}

// Extension is how much more time permitted people may give an inquiry: By at a time, at most
// Max in all.
type Extension struct {
	By  Duration `json:"by"`
	Max Duration `json:"max"`
}

// Deadlines are the fields an asker sets (the README's Deadlines). The zero value asks for nothing.
type Deadlines struct {
	// Remind lists how long before expires_at to remind who may answer; kept longest first.
	Remind []Duration `json:"remind,omitempty"`
	// RemindHere lets a reminder in Slack mention @here when the inquiry names no answerers: a
	// whole channel is woken only when the asker opted in.
	RemindHere bool `json:"remind_here,omitempty"`
	// RemindDM also sends each listed user answerer (U…, W…) a direct message with a reminder.
	RemindDM bool `json:"remind_dm,omitempty"`
	// Escalate is the chain of steps, in the order of their After.
	Escalate []Step `json:"escalate,omitempty"`
	// Extend allows more time; nil: none.
	Extend *Extension `json:"extend,omitempty"`
}

// IsZero reports whether d asks for nothing.
func (d Deadlines) IsZero() bool {
	return len(d.Remind) == 0 && len(d.Escalate) == 0 && d.Extend == nil && !d.RemindHere && !d.RemindDM
}

// Progress is what the server did of an inquiry's deadlines: reminders sent, escalation steps
// taken, time added. Next is when the sweeper looks at it again (nil: nothing left to do).
type Progress struct {
	Reminders  int      `json:"reminders"`
	Escalation int      `json:"escalation"`
	ExtendedBy Duration `json:"extended_by"`
	// RemindStep is how many of Remind (longest first) are behind: sent, or skipped because
	// their time passed before the inquiry was created or extended.
	RemindStep int        `json:"-"`
	Next       *time.Time `json:"-"`
}

// Placement is one more message that shows an inquiry, beside its slack fields: the question
// posted on another of its channels (step 0), or an escalation step's (1-based). Every message
// that shows it is updated when it resolves. Via is the channel that posted it; "" is Slack,
// which every placement was before an inquiry could go to several channels.
type Placement struct {
	Step      int    `json:"step"`
	Via       string `json:"via,omitempty"`
	Channel   string `json:"channel"`
	TS        string `json:"ts"`
	Permalink string `json:"permalink,omitempty"`
}

// On reports whether p was posted by channel ch.
func (p Placement) On(ch string) bool {
	return p.Via == ch || p.Via == "" && ch == TransportSlack
}

// PostedOn is where channel ch showed rec's question, found false when it has not (yet). Slack's
// post is kept in the slack fields; every other channel's is a step-0 placement. A record posted
// before that, on a channel other than Slack, kept its one post in the slack fields too.
func (r *Record) PostedOn(ch string) (where Posted, found bool) {
	for _, p := range r.Placements {
		if p.Step == 0 && p.On(ch) {
			return Posted{Place: p.Channel, ID: p.TS, Link: p.Permalink}, true
		}
	}
	// Before Channels, the slack fields held the transport's post, whichever it was; since, Slack's.
	if legacy := r.Channels == nil; r.Slack.TS != "" && (legacy && ch == r.Config.Transport || !legacy && ch == TransportSlack) {
		return Posted{Place: r.Slack.Channel, Thread: r.Slack.ThreadTS, ID: r.Slack.TS, Link: r.Slack.Permalink}, true
	}
	return Posted{}, false
}

// Escalations are the escalation steps channel ch posted of rec, in the order they were.
func (r *Record) Escalations(ch string) []Placement {
	var out []Placement
	for _, p := range r.Placements {
		if p.Step > 0 && p.On(ch) {
			out = append(out, p)
		}
	}
	return out
}

// checkDeadlines is Validate's part for Deadlines. now is the time of the ask: a reminder or an
// escalation step must fall between it and the expiry.
func checkDeadlines(in *Inquiry, now time.Time) error {
	d := &in.Deadlines
	if len(d.Remind) > 0 {
		if in.ExpiresAt == nil {
			return invalid("remind", "remind needs an expiry to count back from: give expires_in (such as \"2h\") or expires_at, or leave remind out")
		}
		if len(d.Remind) > MaxReminders {
			return invalid("remind", "remind lists %d reminders but may list at most %d: keep the %d that matter", len(d.Remind), MaxReminders, MaxReminders)
		}
		left := in.ExpiresAt.Sub(now)
		for i, r := range d.Remind {
			field := fmt.Sprintf("remind[%d]", i)
			switch {
			case r <= 0:
				return invalid(field, "%s %s is not before the expiry: a reminder is how long before expires_at to remind, such as \"30m\"", field, r)
			case r.D() >= left:
				return invalid(field, "%s %s before the expiry falls at or before now (it expires in %s): give a shorter one, or a later expiry", field, r, Duration(left.Truncate(time.Second)))
			}
			for j := 0; j < i; j++ {
				if d.Remind[j] == r {
					return invalid(field, "%s %s repeats remind[%d]: give each reminder once", field, r, j)
				}
			}
		}
		d.Remind = slices.Clone(d.Remind)
		slices.SortFunc(d.Remind, func(a, b Duration) int { return int(b - a) }) // the first due first
	}
	if len(d.Escalate) > MaxEscalations {
		return invalid("escalate", "escalate lists %d steps but may list at most %d: keep the %d that matter", len(d.Escalate), MaxEscalations, MaxEscalations)
	}
	for i, st := range d.Escalate {
		field := fmt.Sprintf("escalate[%d]", i)
		switch {
		case st.After <= 0:
			return invalid(field+".after", "%s.after %s is not a positive duration: give how long after the question was asked to escalate, such as \"1h\"", field, st.After)
		case i > 0 && st.After <= d.Escalate[i-1].After:
			return invalid(field+".after", "%s.after %s is not after escalate[%d].after %s: order the steps by when they happen", field, st.After, i-1, d.Escalate[i-1].After)
		case in.ExpiresAt != nil && !now.Add(st.After.D()).Before(*in.ExpiresAt):
			return invalid(field+".after", "%s.after %s falls at or after the expiry (it expires in %s): escalate sooner, or give a later expiry", field, st.After, Duration(in.ExpiresAt.Sub(now).Truncate(time.Second)))
		case st.Channel == "" && len(st.Answerers) == 0:
			return invalid(field, "%s widens nothing: give a channel to post the question in too, answerers who may answer too, or both", field)
		}
		if st.Channel != "" && !channelID(st.Channel) && !TeamsConversationID(st.Channel) {
			return invalid(field+".channel", "%s.channel %q is not a Slack channel id nor a Teams conversation id: give one such as \"C0123456789\" (the channel's details show it) or \"19:…@thread.tacv2\" (the bot says it when mentioned in Teams)", field, OneLine(st.Channel, 40))
		}
		if len(st.Answerers) > MaxRequestedBy {
			return invalid(field+".answerers", "%s.answerers names %d but may name at most %d: name a user group (S…) instead", field, len(st.Answerers), MaxRequestedBy)
		}
		for j, a := range st.Answerers {
			if !answererID(a) && !EntraID(a) {
				return invalid(fmt.Sprintf("%s.answerers[%d]", field, j), "%s.answerers[%d] %q is not a Slack user (U…, W…) or user group (S…) id nor a Teams user's Entra object id: give one such as \"U0123456789\" or \"b15a9416-0ad3-4172-9210-7beb711d3f70\"", field, j, OneLine(a, 40))
			}
		}
		if st.Mention && len(st.Answerers) == 0 {
			return invalid(field+".mention", "%s.mention has nobody to mention: list answerers, or leave mention out", field)
		}
	}
	if x := d.Extend; x != nil {
		switch {
		case in.ExpiresAt == nil:
			return invalid("extend", "extend needs an expiry to push back: give expires_in (such as \"2h\") or expires_at, or leave extend out")
		case x.By <= 0:
			return invalid("extend.by", "extend.by %s is not a positive duration: give how much time one extension adds, such as \"1h\"", x.By)
		case x.Max <= 0:
			return invalid("extend.max", "extend.max %s is not a positive duration: give the most time that may be added in all, such as \"4h\"", x.Max)
		case x.By > x.Max:
			return invalid("extend.by", "extend.by %s is more than extend.max %s: give a by at most max", x.By, x.Max)
		}
	}
	if d.RemindHere && len(d.Remind) == 0 {
		return invalid("remind_here", "remind_here has no reminder to mention @here in: add remind, or leave remind_here out")
	}
	if d.RemindDM && len(d.Remind) == 0 {
		return invalid("remind_dm", "remind_dm has no reminder to send: add remind, or leave remind_dm out")
	}
	return nil
}

// channelID reports whether s looks like a Slack conversation id (C…, G…).
func channelID(s string) bool { return slackID(s, "CG") }

// answererID reports whether s looks like a Slack user (U…, W…) or user group (S…) id.
func answererID(s string) bool { return slackID(s, "UWS") }

func slackID(s, prefixes string) bool {
	if len(s) < 2 || len(s) > 32 || !strings.ContainsRune(prefixes, rune(s[0])) {
		return false
	}
	for _, r := range s[1:] {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// StartProgress is the progress of rec as it is created (or extended): the reminders whose time
// has passed at now are behind, and Next is the first thing due.
func StartProgress(rec *Record, now time.Time) Progress {
	p := rec.Progress
	p.RemindStep = remindBehind(rec, now)
	p.Next = NextDue(rec, p)
	return p
}

// remindBehind is how many of rec's reminders fall at or before now.
func remindBehind(rec *Record, now time.Time) int {
	if rec.ExpiresAt == nil {
		return 0
	}
	n := 0
	for _, r := range rec.Remind {
		if !rec.ExpiresAt.Add(-r.D()).After(now) {
			n++
		}
	}
	return n
}

// RemindAt is when rec's reminder i is due (relative to the current expiry, so it moves with an
// extension).
func RemindAt(rec *Record, i int) time.Time { return rec.ExpiresAt.Add(-rec.Remind[i].D()) }

// EscalateAt is when rec's escalation step i (0-based) is due.
func EscalateAt(rec *Record, i int) time.Time { return rec.CreatedAt.Add(rec.Escalate[i].After.D()) }

// NextDue is when the next reminder or escalation step of rec with progress p is due, nil when
// none is left (or rec is no longer pending).
func NextDue(rec *Record, p Progress) *time.Time {
	if rec.Status != StatusPending {
		return nil
	}
	var next *time.Time
	if rec.ExpiresAt != nil && p.RemindStep < len(rec.Remind) {
		t := RemindAt(rec, p.RemindStep)
		next = &t
	}
	if p.Escalation < len(rec.Escalate) {
		if t := EscalateAt(rec, p.Escalation); next == nil || t.Before(*next) {
			next = &t
		}
	}
	return next
}

// DeadlineWork is what one look at a due inquiry does: the progress to store, and the events and
// deliveries that go with it, in the same transaction.
type DeadlineWork struct {
	Progress   Progress
	Events     []Event
	Deliveries []Delivery
}

// remindedData and escalatedData are the data of the reminded and escalated events.
type (
	remindedData struct {
		Before   Duration  `json:"before"`     // the reminder, as the asker gave it
		Left     Duration  `json:"left"`       // how long was left when it was sent
		Expires  time.Time `json:"expires_at"` // the expiry it reminded of
		Number   int       `json:"number"`     // the how-manyth reminder
		Mentions []string  `json:"mentions"`   // who it calls on
	}
	escalatedData struct {
		Step      int      `json:"step"` // 1-based
		Channel   string   `json:"channel,omitempty"`
		Answerers []string `json:"answerers,omitempty"`
	}
	extendedData struct {
		By         Duration  `json:"by"`
		ExtendedBy Duration  `json:"extended_by"`
		ExpiresAt  time.Time `json:"expires_at"`
	}
)

// PlanDeadlines is the pure step of the sweeper for one pending inquiry due at now: at most one
// reminder (the latest due: reminders missed while the bot was down are not sent in a burst) and
// at most one escalation step, with their events and — for an inquiry shown by a transport — the
// deliveries that show them. An inquiry past its expiry is the expiry sweep's: nothing more is
// due of it.
func (s *Service) PlanDeadlines(rec *Record, now time.Time) (w DeadlineWork) {
	p := rec.Progress
	if rec.Status != StatusPending || rec.DueAt(now) {
		p.Next = nil
		return DeadlineWork{Progress: p}
	}
	shown := rec.Config.Policy == PolicyAsk && rec.Config.Transport != TransportInbox
	// The step first, so that a reminder due at the same time calls on the people it adds.
	if p.Escalation < len(rec.Escalate) && !EscalateAt(rec, p.Escalation).After(now) {
		st := rec.Escalate[p.Escalation]
		p.Escalation++
		w.Events = append(w.Events, event(rec, EventEscalated, now, "", escalatedData{
			Step: p.Escalation, Channel: st.Channel, Answerers: st.Answerers,
		}))
		if shown && (st.Channel != "" || st.Mention) && (rec.Config.Transport == TransportSlack || rec.Config.Transport == TransportTeams) {
			// A step with a channel posts the question there; one without, that mentions its
			// answerers, calls on them in the question's thread (its lane).
			d := s.delivery(rec, DeliverEscalate, rec.Config.Transport, now)
			d.Step = p.Escalation
			if st.Channel != "" {
				d.Lane = st.Channel // paced with the channel it posts in
			}
			w.Deliveries = append(w.Deliveries, d)
		}
	}
	if rec.ExpiresAt != nil && p.RemindStep < len(rec.Remind) && !RemindAt(rec, p.RemindStep).After(now) {
		i := p.RemindStep
		for i+1 < len(rec.Remind) && !RemindAt(rec, i+1).After(now) {
			i++ // a later one is due too: it alone is sent
		}
		p.RemindStep, p.Reminders = i+1, p.Reminders+1
		w.Events = append(w.Events, event(rec, EventReminded, now, "", remindedData{
			Before: rec.Remind[i], Left: Duration(rec.ExpiresAt.Sub(now)), Expires: *rec.ExpiresAt,
			Number: p.Reminders, Mentions: Mentions(rec, p.Escalation),
		}))
		if shown {
			// One on each channel it was posted to, each in the lane of the question's post
			// there: never before the question.
			for _, d := range s.toEach(rec, DeliverRemind, now) {
				d.Step = p.Reminders
				w.Deliveries = append(w.Deliveries, d)
			}
		}
	}
	p.Next = NextDue(rec, p)
	w.Progress = p
	return w
}

// Answerers is who may answer rec once its escalation steps so far are taken: slack.answerers and
// those each step taken adds. An empty list means anybody (as slack.answerers empty does), and a
// step cannot narrow that.
func Answerers(rec *Record) []string {
	if len(rec.Slack.Answerers) == 0 {
		return nil
	}
	out := slices.Clone(rec.Slack.Answerers)
	for i := 0; i < rec.Escalation && i < len(rec.Escalate); i++ {
		for _, a := range rec.Escalate[i].Answerers {
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

// Mentions is who a reminder calls on after steps escalation steps: the answerers (users and
// groups) — when anybody may answer, those the steps taken named, who were added to be asked —
// and "here" — the whole channel — only when nobody is named and the asker opted in
// (remind_here).
func Mentions(rec *Record, steps int) []string {
	cp := *rec
	cp.Escalation = steps
	out := Answerers(&cp)
	if len(out) == 0 {
		for i := 0; i < steps && i < len(rec.Escalate); i++ {
			for _, a := range rec.Escalate[i].Answerers {
				if !slices.Contains(out, a) {
					out = append(out, a)
				}
			}
		}
	}
	if len(out) == 0 && rec.RemindHere {
		return []string{"here"}
	}
	return out
}

// DeadlineState is what was done of rec's deadlines, for a list row: "escalation step 1 of 2 · 1
// reminder sent · extended by 30m" — "" when it asks for none of it.
func DeadlineState(rec *Record) string {
	var parts []string
	if n := len(rec.Escalate); n > 0 {
		if rec.Escalation == 0 {
			parts = append(parts, fmt.Sprintf("not escalated yet (%d step(s))", n))
		} else {
			parts = append(parts, fmt.Sprintf("escalation step %d of %d", rec.Escalation, n))
		}
	}
	if len(rec.Remind) > 0 {
		// Sent and still to come apart: an extension re-arms the reminders ahead of the new
		// deadline, so more may have been sent than were asked for.
		parts = append(parts, fmt.Sprintf("%d reminder(s) sent, %d to come", rec.Reminders, len(rec.Remind)-min(rec.RemindStep, len(rec.Remind))))
	}
	if rec.ExtendedBy > 0 {
		parts = append(parts, "extended by "+rec.ExtendedBy.String())
	}
	return strings.Join(parts, " · ")
}

// TimeLeft is how long is left of rec at now, as people read it: "1h 5m", "4m", "2d 3h", "under a
// minute" ("" without an expiry).
func TimeLeft(rec *Record, now time.Time) string {
	if rec.ExpiresAt == nil {
		return ""
	}
	d := rec.ExpiresAt.Sub(now)
	if d < time.Minute {
		return "under a minute"
	}
	return span(d)
}

// ReminderText is the one sentence of a reminder, without its mentions (each edge writes those
// its own way): "Still waiting for an answer: 10m left; if nobody answers: Hold."
func ReminderText(rec *Record, now time.Time) string {
	return fmt.Sprintf("Still waiting for an answer: %s left; if nobody answers: %s.", TimeLeft(rec, now), Assumed(&rec.Inquiry))
}

// EscalationText is the line that says why an escalated question is shown in another channel.
func EscalationText(rec *Record, step int) string {
	return fmt.Sprintf("Escalated (step %d of %d): nobody has answered yet.", step, len(rec.Escalate))
}

// ExtendedText says by how much rec's deadline was just pushed back (by, the extension given, as
// Extend takes it: 0 means rec's extend.by), until when, and, after more than one extension, how
// much in all: a second "bot extend 1 30m" said "extended by 1h30m", the total, as if 1h30m had
// just been given.
func ExtendedText(rec *Record, by Duration) string {
	if rec.ExtendedBy <= 0 || rec.ExpiresAt == nil {
		return ""
	}
	if by <= 0 && rec.Extend != nil {
		by = rec.Extend.By
	}
	when := rec.ExpiresAt.UTC().Format("2006-01-02 15:04 MST")
	if by <= 0 || by >= rec.ExtendedBy {
		return fmt.Sprintf("Deadline extended by %s, to %s.", rec.ExtendedBy, when)
	}
	return fmt.Sprintf("Deadline extended by %s, to %s (%s in all).", by, when, rec.ExtendedBy)
}

// MayExtend reports whether rec may be given by more time now, and if not the one sentence why;
// by 0 means the inquiry's own extend.by. It returns the extension to apply.
func MayExtend(rec *Record, by Duration) (Duration, error) {
	if rec.Status != StatusPending {
		return 0, AlreadyResolved(rec)
	}
	x := rec.Extend
	if x == nil || rec.ExpiresAt == nil {
		return 0, Errorf(CodeForbidden, "inquiry %s does not allow more time (its asker gave no extend): answer it before it expires", rec.Key)
	}
	if by == 0 {
		by = x.By
	}
	left := x.Max - rec.ExtendedBy
	switch {
	case by < 0:
		return 0, FieldErrorf(CodeBadRequest, "by", "by %s is not a positive duration: give one such as %q", by, x.By.String())
	case left <= 0:
		return 0, Errorf(CodeForbidden, "inquiry %s was extended by %s already, the most its asker allows (extend.max): answer it before it expires", rec.Key, rec.ExtendedBy)
	case by > x.By:
		return 0, FieldErrorf(CodeBadRequest, "by", "by %s is more than the %s its asker allows at a time (extend.by): give at most %s", by, x.By, x.By)
	case by > left:
		return 0, FieldErrorf(CodeBadRequest, "by", "by %s is more than the %s left of extend.max %s: give at most %s", by, left, x.Max, left)
	}
	return by, nil
}

// ExtendRequest is the body of POST /v1/inquiries/{key}/extend.
type ExtendRequest struct {
	By Duration `json:"by"`
}

// Extend pushes the expiry of the pending inquiry with key back by by (0: its extend.by), as who
// (as their channel saw them): the reminders move with the expiry, the message shows the new
// deadline, and the change is on the record. Whoever may answer the inquiry may give it more
// time: the one rule, MayAnswer, decides.
func (s *Service) Extend(ctx context.Context, key string, by Duration, identity Identity) (*Record, error) {
	if p, refused := whoever(identity); refused {
		return nil, p.Err()
	}
	rec, err := s.Store.Inquiry(ctx, key)
	if err != nil {
		return nil, err
	}
	if p := MayAnswer(rec, identity); !p.Allowed {
		return nil, extendRefusal(p, rec)
	}
	who := identity.AnsweredBy()
	if rec, err = s.current(ctx, rec); err != nil {
		return nil, err
	}
	if _, err := MayExtend(rec, by); err != nil {
		return rec, err
	}
	now := s.Clock()
	var refused error
	out, err := s.Store.UpdateDeadlines(ctx, key, func(cur *Record) (*time.Time, *DeadlineWork) {
		if cur.DueAt(now) {
			refused = Errorf(CodeAlreadyResolved, "inquiry %s expired before it could be extended; nothing was changed", cur.Key)
			return nil, nil
		}
		n, err := MayExtend(cur, by)
		if err != nil {
			refused = err
			return nil, nil
		}
		exp := cur.ExpiresAt.Add(n.D())
		cp := *cur
		cp.ExpiresAt, cp.ExtendedBy = &exp, cur.ExtendedBy+n
		p := StartProgress(&cp, now)
		p.ExtendedBy = cp.ExtendedBy
		w := &DeadlineWork{Progress: p, Events: []Event{event(&cp, EventExtended, now, who, extendedData{By: n, ExtendedBy: p.ExtendedBy, ExpiresAt: exp})}}
		w.Deliveries = append(w.Deliveries, s.toEach(cur, DeliverRefresh, now)...)
		return &exp, w
	})
	if refused != nil {
		if out == nil {
			out = rec
		}
		return out, refused
	}
	if err != nil {
		return nil, err
	}
	s.Hub.Wake(key) // a long-poll that ends at the expiry waits for the new one
	s.kick()
	return out, nil
}

// SweepDeadlines sends what is due of every inquiry's reminders and escalation steps at now, in
// batches of limit, and returns how many inquiries it moved on. Each claim is the store's
// (SKIP LOCKED or a conditional update): two sweepers never send one reminder twice.
func (s *Service) SweepDeadlines(ctx context.Context, limit int) (int, error) {
	if limit <= 0 {
		limit = 500
	}
	total := 0
	for ctx.Err() == nil {
		now := s.Clock()
		n, err := s.Store.ClaimDeadlines(ctx, now, limit, func(rec *Record) DeadlineWork {
			return s.PlanDeadlines(rec, now)
		})
		total += n
		if n > 0 {
			s.kick()
		}
		if err != nil || n < limit {
			return total, err
		}
	}
	return total, ctx.Err()
}

// Reminder is a transport that can remind people of a question it has shown.
type Reminder interface {
	// Remind shows reminder number n of rec (pending) where it was asked.
	Remind(ctx context.Context, rec *Record, n int) error
}

// Escalator is a transport that can show a question in one more place: an escalation step.
type Escalator interface {
	// Escalate shows rec (pending) as escalation step (1-based) says, and returns where: the
	// question in the step's channel, or — a step without one that mentions its answerers — a
	// call on them in the question's thread (a Placement without a channel: nothing to update).
	Escalate(ctx context.Context, rec *Record, step int) (Placement, error)
}

// ReminderFinder is a Reminder that can tell whether a reminder it was asked to show was shown:
// an attempt whose outcome never came back (the process died, Slack was slower than the lease)
// may have been, and Slack has no idempotency key.
type ReminderFinder interface {
	// FindReminder reports whether reminder n of rec is shown; an error means it cannot tell now
	// (one for which Fatal is true: never, and the reminder is shown).
	FindReminder(ctx context.Context, rec *Record, n int) (found bool, err error)
}

// EscalationFinder is an Escalator that can find the message of a step it was asked to show.
type EscalationFinder interface {
	// FindEscalation returns where step of rec is shown, or found false; errors as FindReminder's.
	FindEscalation(ctx context.Context, rec *Record, step int) (where Placement, found bool, err error)
}

// transportAs is the transport named target as a T; ok is false with no error when it cannot do
// what T does (there is nothing to deliver then), and with the error when there is no such transport.
func transportAs[T any](s *Service, target string) (as T, ok bool, err error) {
	t, err := s.Transports.Lookup(target)
	if err == nil {
		as, ok = t.(T)
	}
	return as, ok, err
}

func (s *Service) deliverRemind(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if _, shown := rec.PostedOn(d.Target); rec.Status != StatusPending || rec.DueAt(s.Clock()) || !shown {
		return nil // answered or expired meanwhile (its sweep may not have run yet), or never shown there: no reminder of it
	}
	if remindBehind(rec, s.Clock()) == 0 {
		// Extended after it was enqueued, past every reminder: it would come early, and the
		// reminders, moved with the expiry, are due again later.
		s.logger().InfoContext(ctx, "reminder dropped: the deadline was extended since", "key", rec.Key, "number", d.Step)
		return nil
	}
	r, ok, err := transportAs[Reminder](s, d.Target)
	if !ok {
		return err
	}
	if f, ok := r.(ReminderFinder); ok && d.Attempts > 1 {
		found, err := f.FindReminder(ctx, rec, d.Step)
		if found {
			s.logger().InfoContext(ctx, "reminder found posted by an earlier attempt", "key", rec.Key, "number", d.Step, "attempts", d.Attempts)
			return nil
		}
		if err := s.notFound(ctx, "a reminder", rec.Key, err); err != nil {
			return err
		}
	}
	return r.Remind(ctx, rec, d.Step)
}

func (s *Service) deliverEscalate(ctx context.Context, d Delivery) error {
	rec, err := s.Store.Inquiry(ctx, d.InquiryKey)
	if err != nil {
		return skipGone(err)
	}
	if rec.Status != StatusPending || rec.DueAt(s.Clock()) || d.Step < 1 || d.Step > len(rec.Escalate) {
		return nil // answered or expired meanwhile: its controls would show in one more place in vain
	}
	for _, p := range rec.Escalations(d.Target) {
		if p.Step == d.Step {
			return nil // shown by an earlier attempt
		}
	}
	e, ok, err := transportAs[Escalator](s, d.Target)
	if !ok {
		return err
	}
	if f, ok := e.(EscalationFinder); ok && d.Attempts > 1 {
		where, found, err := f.FindEscalation(ctx, rec, d.Step)
		switch {
		case found && where.Channel == "":
			return nil // a call in the question's thread: no message of its own to keep up to date
		case found:
			s.logger().InfoContext(ctx, "escalation found posted by an earlier attempt", "key", rec.Key, "step", d.Step, "attempts", d.Attempts)
			return s.Store.AddPlacement(ctx, rec.Key, where)
		}
		if err := s.notFound(ctx, "an escalation", rec.Key, err); err != nil {
			return err
		}
	}
	where, err := e.Escalate(ctx, rec, d.Step)
	if err != nil {
		if Fatal(err) {
			// The question stays asked where it was; the asker reads why the step did not show.
			f := Failure{Code: CodeUnavailable, Message: fmt.Sprintf("escalation step %d could not be posted: %s", d.Step, ErrorMessage(err))}
			if e := s.Store.NoteFailure(ctx, rec.Key, f); e != nil {
				return e
			}
		}
		return err
	}
	if where.Channel == "" || where.TS == "" {
		return nil // a call in the question's thread, or nothing shown
	}
	where.Step = d.Step
	return s.Store.AddPlacement(ctx, rec.Key, where)
}

// extendRefusal is MayAnswer's refusal said of giving more time: the asking token's in words of
// its own, the others as the rule says them.
func extendRefusal(p Permission, rec *Record) error {
	if p.Refused == RefusedAsker {
		e := Errorf(CodeForbidden, "token %q asked inquiry %s and may not extend it: the people who may answer it give it more time, in Slack or with a token of their own", rec.AskedBy, rec.Key)
		e.Err = p.Refused
		return e
	}
	return p.Err()
}
