package inquiry

import (
	"context"
	"slices"
	"strconv"
	"time"
)

// RunStatus is where a run stands; see doc.go for the state machine.
type RunStatus string

// Run statuses.
const (
	RunRunning   RunStatus = "running"
	RunWaiting   RunStatus = "waiting"
	RunCompleted RunStatus = "completed"
	RunFailed    RunStatus = "failed"
	RunAbandoned RunStatus = "abandoned"
)

// runStatuses are the run statuses, in the order sentences name them.
var runStatuses = []RunStatus{RunRunning, RunWaiting, RunCompleted, RunFailed, RunAbandoned}

// Valid reports whether s is a known run status.
func (s RunStatus) Valid() bool { return slices.Contains(runStatuses, s) }

// CheckFilter refuses a run status to list by that is no run status; "" (every status) passes.
func (s RunStatus) CheckFilter() error { return checkFilter(s, runStatuses) }

// Finished reports whether the run is over.
func (s RunStatus) Finished() bool {
	return s == RunCompleted || s == RunFailed || s == RunAbandoned
}

// Run is a caller's execution: an agent session, a pipeline run, a nightly job.
type Run struct {
	ID          string    `json:"id"`
	Namespace   string    `json:"namespace"`
	Status      RunStatus `json:"status"`
	Config      *Config   `json:"config"`
	ResumeURL   string    `json:"resume_url"`
	HeartbeatAt time.Time `json:"heartbeat_at"`
	// Answers holds the recorded answers by inquiry id, each cut by StateAnswerOf(CapAnswer(…)).
	// It is the one part of a run's state that accumulates.
	Answers map[string]Answer `json:"answers"`
	// WaitingOn is the key of the inquiry a waiting run parked on ("" otherwise).
	WaitingOn string    `json:"-"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// DeliveryKind is what a delivery does.
type DeliveryKind string

// Delivery kinds.
const (
	DeliverPost   DeliveryKind = "post"   // put a pending inquiry to people through its transport
	DeliverUpdate DeliveryKind = "update" // show a resolved inquiry's outcome through its transport
	// DeliverTally shows the votes so far of a pending inquiry that needs several people; once
	// the inquiry has resolved it does nothing, its resolution's own update shows the outcome.
	DeliverTally    DeliveryKind = "tally"
	DeliverNotice   DeliveryKind = "notice"   // record a policy assumption where people read
	DeliverCallback DeliveryKind = "callback" // POST the resolved inquiry to its callback_url
	DeliverResume   DeliveryKind = "resume"   // POST the run and its new answer to its resume_url
	// DeliverRemind shows reminder number Step of a pending inquiry where it was asked.
	DeliverRemind DeliveryKind = "remind"
	// DeliverEscalate shows a pending inquiry as its escalation step number Step says.
	DeliverEscalate DeliveryKind = "escalate"
	// DeliverRefresh shows a pending inquiry as it now stands (a new deadline); like a tally, it
	// does nothing once the inquiry resolved.
	DeliverRefresh DeliveryKind = "refresh"
)

// DeliveryStatus is where a delivery stands.
type DeliveryStatus string

// Delivery statuses.
const (
	DeliveryPending DeliveryStatus = "pending" // due at NextAttemptAt
	DeliveryDone    DeliveryStatus = "done"
	DeliveryFailed  DeliveryStatus = "failed" // gave up; LastError says why
)

// Delivery is a durable piece of outbound work. It is stored in the same transaction as the
// change that calls for it, claimed with a lease, and retried with backoff until it succeeds or
// gives up — never lost silently.
type Delivery struct {
	ID         int64        `json:"id"`
	Kind       DeliveryKind `json:"kind"`
	InquiryKey string       `json:"inquiry_key"`
	Namespace  string       `json:"namespace"`
	RunID      string       `json:"run_id,omitempty"`
	// Target is the transport key (post, update, notice) or the URL (callback, resume).
	Target string `json:"target"`
	// Lane orders deliveries that must go out in order (a Slack channel); "" for none.
	Lane          string         `json:"lane,omitempty"`
	Status        DeliveryStatus `json:"status"`
	Attempts      int            `json:"attempts"`
	NextAttemptAt time.Time      `json:"next_attempt_at"`
	LastError     string         `json:"last_error,omitempty"`
	CreatedAt     time.Time      `json:"created_at"`
	UpdatedAt     time.Time      `json:"updated_at"`
	// Step is which reminder or escalation step a remind or escalate delivery shows (1-based).
	Step int `json:"step,omitempty"`
}

// Scope is what a token may do.
type Scope string

// Token scopes. A token that may ask may not answer: an agent cannot answer its own question.
const (
	ScopeAsk    Scope = "ask"    // create and read its own inquiries and runs
	ScopeAnswer Scope = "answer" // list and answer inquiries
	ScopeAdmin  Scope = "admin"  // everything, and tokens
)

// Token is an API token as stored: never the secret, only its hash.
type Token struct {
	ID         string     `json:"id"` // public part of the token, used to find it
	Name       string     `json:"name"`
	Namespace  string     `json:"namespace"`
	Scopes     []Scope    `json:"scopes"`
	SecretHash []byte     `json:"-"` // SHA-256 of the secret part, compared in constant time
	CreatedAt  time.Time  `json:"created_at"`
	RevokedAt  *time.Time `json:"revoked_at,omitempty"`
	// NamespaceBound is set for a token created with an explicit namespace: with the answer
	// scope it sees and answers that namespace only. A token whose namespace defaulted to its
	// name answers every namespace (a person's token).
	NamespaceBound bool `json:"namespace_bound"`
}

// Has reports whether the token carries scope s (admin carries every scope).
func (t *Token) Has(s Scope) bool {
	for _, have := range t.Scopes {
		if have == s || have == ScopeAdmin {
			return true
		}
	}
	return false
}

// SeesAll reports whether the token reads every namespace's inquiries: admin tokens do, and
// answer tokens (people and their tools) unless they were created for one namespace. An ask
// token sees only its own namespace.
func (t *Token) SeesAll() bool {
	return t.IsAdmin() || t.Has(ScopeAnswer) && !t.NamespaceBound
}

// ListFilter selects inquiries for a list, newest first.
type ListFilter struct {
	Namespace string // "" means every namespace
	Status    Status // "" means any
	RunID     string
	Channel   string // the Slack channel it was posted to; "" means any
	Limit     int    // 0: DefaultListLimit; MaxListLimit at the most
	Cursor    string // opaque, from the previous page
}

// Page sizes of the lists of inquiries and runs: what a page holds when the caller names no
// limit, and the most a caller may ask for (a store clamps to it too).
const (
	DefaultListLimit = 50
	MaxListLimit     = 500
)

// ParseListLimit reads a list's limit as a caller wrote it ("" for none): a whole number from 1
// to MaxListLimit, or DefaultListLimit when it is left out.
func ParseListLimit(raw string) (int, error) {
	if raw == "" {
		return DefaultListLimit, nil
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < 1 || n > MaxListLimit {
		return 0, FieldErrorf(CodeBadRequest, "limit", "limit %q is not a whole number from 1 to %d: use one, or leave it out for %d", raw, MaxListLimit, DefaultListLimit)
	}
	return n, nil
}

// Resolution is how an inquiry leaves pending.
type Resolution struct {
	Status  Status   // answered, expired, cancelled or failed
	Answer  *Answer  // for answered and expired
	Failure *Failure // for failed
	At      time.Time
	// Expiry, for an expiry, is the expires_at it was decided on (read without a lock): the store
	// applies it only while the inquiry still expires then, so that an Extend committed between
	// the read and the update wins (nil: no such condition).
	Expiry *time.Time
	// Deliveries are enqueued in the same transaction, only if the resolution wins.
	Deliveries []Delivery
}

// DeliveryClaim is one claim of ClaimDeliveriesEach: up to Limit pending deliveries of Kinds
// (none: every kind).
type DeliveryClaim struct {
	Limit int
	Kinds []DeliveryKind
}

// ResolveItem is one resolution of a ResolveMany batch.
type ResolveItem struct {
	Key        string
	Resolution Resolution
	// Read, when not nil, is the record of Key as the caller read it from this store (without a
	// lock: it may be stale), unchanged. The store may take from it what an inquiry never changes
	// once created (its question, options, default, asker…) instead of reading that back; the
	// record returned is the same either way. The sweeper's expiries carry the due read's record.
	Read *Record
}

// Store is the persistence contract. Every method is one transaction; methods that claim work
// several replicas race for are safe to call concurrently from several processes. Errors are
// *Error values: CodeNotFound, CodeIDConflict, CodeAlreadyResolved, CodeStorageUnavailable
// (the database cannot be reached right now), or CodeInternal.
type Store interface {
	// CreateInquiry stores rec (pending, or already resolved by policy) with its deliveries. When
	// an inquiry with the same (namespace, run_id, id) exists, nothing is written: with the same
	// content (SameContent) the existing record is returned with created false; with other
	// content the error is CodeIDConflict.
	CreateInquiry(ctx context.Context, rec *Record, deliveries []Delivery) (stored *Record, created bool, err error)
	// Inquiry returns the inquiry with the server key.
	Inquiry(ctx context.Context, key string) (*Record, error)
	// InquiryByID returns the inquiry with the asker's (namespace, run_id, id).
	InquiryByID(ctx context.Context, namespace, runID, id string) (*Record, error)
	// ListInquiries lists newest first, with a cursor for the next page ("" when none).
	ListInquiries(ctx context.Context, f ListFilter) ([]*Record, string, error)
	// Resolve moves a pending inquiry to r.Status by a conditional update: the first resolution
	// wins and later ones get CodeAlreadyResolved together with the record as it stands — as does
	// an expiry whose r.Expiry the inquiry no longer has (extended since: still pending). In the
	// same transaction it enqueues r.Deliveries and, when the inquiry was parked on by a run (a run
	// may wait on several inquiries at once), records StateAnswerOf(CapAnswer(answer)) in that
	// run's answers — the run stays waiting until it is resumed — and enqueues a DeliverResume
	// when the run is still waiting and has a resume URL. A finished run is left alone. On
	// PostgreSQL it also notifies other replicas (LISTEN/NOTIFY). A zero r.At means now.
	Resolve(ctx context.Context, key string, r Resolution) (*Record, error)
	// ResolveMany applies each item as Resolve does (conditional update, deliveries, the parked
	// run's answer and resume, the notification), all in one transaction, and returns the records
	// this call resolved. An item whose inquiry is no longer pending, or not there, or no longer
	// expires at its Resolution.Expiry, is skipped, not an error. Rows are locked in key order,
	// whatever the order of items, so two callers resolving overlapping batches concurrently
	// never deadlock.
	ResolveMany(ctx context.Context, items []ResolveItem) ([]*Record, error)
	// Vote records v in the pending inquiry with key, in place of an earlier vote of the same
	// person, under the row's lock; decide then says, given the record with its votes, whether
	// they resolve it (a Resolution applied in the same transaction, as Resolve would) and what
	// to enqueue when they do not. A vote on an inquiry no longer pending is not recorded:
	// CodeAlreadyResolved together with the record.
	Vote(ctx context.Context, key string, v Vote, decide func(rec *Record) (*Resolution, []Delivery)) (*Record, error)
	// SetPosted records where a transport showed the inquiry.
	SetPosted(ctx context.Context, key string, ref SlackRef) error
	// NoteFailure records f on the inquiry unless it has a failure already (the first one says
	// why); it changes nothing else. A missing inquiry is not an error.
	NoteFailure(ctx context.Context, key string, f Failure) error
	// DueInquiries claims up to limit pending inquiries whose expiry is at or before now, oldest
	// expiry first (ties by key), and after the record after when it is not nil: the last of the
	// previous page, whose expiry and key are a keyset cursor, so that a reader can take the next
	// page while the previous one is still being resolved. It must cost the same with a million
	// pending rows as with ten (an index on the expiry of pending rows). Claiming is advisory:
	// the caller resolves each with Resolve, whose conditional update keeps two sweepers from
	// resolving one inquiry twice.
	DueInquiries(ctx context.Context, now time.Time, after *Record, limit int) ([]*Record, error)
	// ClaimDeadlines claims up to limit pending inquiries whose next reminder or escalation step
	// is due at or before now (oldest first; SKIP LOCKED or a conditional update, so concurrent
	// claimers never take one inquiry twice), and for each applies plan's work in the same
	// transaction: the progress stored (its Next the new due time), the events appended and the
	// deliveries enqueued. It returns how many it claimed.
	ClaimDeadlines(ctx context.Context, now time.Time, limit int, plan func(rec *Record) DeadlineWork) (int, error)
	// UpdateDeadlines changes the pending inquiry with key under its row's lock: change says,
	// given the record, the new expiry and the work (progress, events, deliveries) to store —
	// nil, nil to change nothing. It returns the record as it then stands. An inquiry no longer
	// pending is CodeAlreadyResolved with the record.
	UpdateDeadlines(ctx context.Context, key string, change func(rec *Record) (*time.Time, *DeadlineWork)) (*Record, error)
	// AddPlacement records one more message that shows the inquiry (once per step).
	AddPlacement(ctx context.Context, key string, p Placement) error
	// DeleteResolvedBefore deletes inquiries resolved before t with their events, and done or
	// failed deliveries last touched before t; it returns how many inquiries.
	DeleteResolvedBefore(ctx context.Context, t time.Time) (int, error)

	// PutRun registers a run, or returns the existing one updated with any config and resume
	// URL given. A new run is running with its heartbeat at now.
	PutRun(ctx context.Context, run *Run, now time.Time) (*Run, error)
	// Run returns a run of the namespace.
	Run(ctx context.Context, namespace, id string) (*Run, error)
	// ListRuns lists a namespace's runs ("" for all), most recently updated first.
	ListRuns(ctx context.Context, namespace string, status RunStatus, limit int) ([]*Run, error)
	// Heartbeat moves the heartbeat to now.
	Heartbeat(ctx context.Context, namespace, id string, now time.Time) (*Run, error)
	// RecordAnswers merges answers (already cut by the caller) into the run's answers, re-reading
	// them inside the transaction so that concurrent writers never lose a sibling's answer. When
	// status is not "" the run takes it (and a run set running has its heartbeat moved to now and
	// WaitingOn cleared).
	RecordAnswers(ctx context.Context, namespace, id string, answers map[string]Answer, status RunStatus, now time.Time) (*Run, error)
	// ParkRun makes the run wait on the inquiry with key (marking the inquiry with the run, so its
	// resolution finds the run) — unless that inquiry is already resolved, in which case its answer
	// (if it has one) is recorded instead, the run stays as it is, and the resolved record is
	// returned so the caller can hand the answer back. Resolve and ParkRun lock the inquiry row, so
	// an answer landing while a run parks is never missed. An inquiry of another namespace is
	// CodeNotFound.
	ParkRun(ctx context.Context, namespace, id, key string, now time.Time) (*Run, *Record, error)
	// FinishRun sets a final status.
	FinishRun(ctx context.Context, namespace, id string, status RunStatus, now time.Time) (*Run, error)
	// AbandonStale marks running runs whose heartbeat is before cutoff abandoned. Waiting runs are
	// never touched. It returns how many.
	AbandonStale(ctx context.Context, cutoff, now time.Time) (int, error)

	// EnqueueDeliveries stores deliveries on their own (work that follows no state change). Zero
	// CreatedAt and NextAttemptAt mean now.
	EnqueueDeliveries(ctx context.Context, ds []Delivery) error
	// ClaimDeliveries claims up to limit pending deliveries due at now, in id order, by moving
	// their NextAttemptAt to now+lease (so a claimer that dies releases them) and counting an
	// attempt. Concurrent claimers never get the same delivery (SKIP LOCKED or a conditional
	// update). A lane keeps its order: a delivery is not claimed while an earlier pending delivery
	// of its lane is held back (not yet due, or under another claim's lease), across replicas too.
	// kinds limits the kinds claimed (none: all).
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int, kinds ...DeliveryKind) ([]Delivery, error)
	// ClaimDeliveriesEach makes each of claims as ClaimDeliveries would, one after another, in one
	// transaction where the store has them (the price of about one claim); a claim sees the leases
	// of those before it. out[i] is what claims[i] claimed.
	ClaimDeliveriesEach(ctx context.Context, now time.Time, lease time.Duration, claims []DeliveryClaim) ([][]Delivery, error)
	// CompleteDelivery marks a delivery done.
	CompleteDelivery(ctx context.Context, id int64, now time.Time) error
	// RetryDelivery puts a delivery back for another attempt at next, with the error.
	RetryDelivery(ctx context.Context, id int64, next time.Time, lastErr string, now time.Time) error
	// FailDelivery gives a delivery up, keeping the error visible.
	FailDelivery(ctx context.Context, id int64, lastErr string, now time.Time) error
	// ListDeliveries lists deliveries of an inquiry (for diagnosis and tests).
	ListDeliveries(ctx context.Context, inquiryKey string) ([]Delivery, error)
	// CountDeliveries counts pending deliveries (the queue depth).
	CountDeliveries(ctx context.Context, status DeliveryStatus) (int, error)

	// CreateToken stores a token; a name in use is CodeIDConflict.
	CreateToken(ctx context.Context, t *Token) error
	// Token returns a token by id, revoked or not.
	Token(ctx context.Context, id string) (*Token, error)
	// ListTokens lists every token.
	ListTokens(ctx context.Context) ([]*Token, error)
	// RevokeToken revokes the token with name.
	RevokeToken(ctx context.Context, name string, now time.Time) error
	// CountTokens counts tokens that are not revoked.
	CountTokens(ctx context.Context) (int, error)

	// Setting reads a server setting; CodeNotFound when unset.
	Setting(ctx context.Context, name string) (string, error)
	// InitSetting stores value under name unless it is set, and returns what is stored.
	InitSetting(ctx context.Context, name, value string) (string, error)

	// RevokeLinks records that the links of recipient ("" for the general link) to the
	// inquiry with key issued until at no longer work; a later revocation moves it on.
	RevokeLinks(ctx context.Context, key, recipient string, at time.Time) error
	// LinksRevokedAt returns when the links of recipient to the inquiry with key were last
	// revoked; ok is false when never.
	LinksRevokedAt(ctx context.Context, key, recipient string) (at time.Time, ok bool, err error)

	// CountPending counts pending inquiries.
	CountPending(ctx context.Context) (int, error)
	// Ping checks the database can be reached.
	Ping(ctx context.Context) error

	// EventStore reads the record of events the store appends to with every change of an
	// inquiry, in the same transaction (event.go).
	EventStore
}
