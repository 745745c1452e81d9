package mcptools

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/inquiry"
)

// Tasks: MCP's io.modelcontextprotocol/tasks extension (2026-07-28, SEP-2663) for ask_human. A
// client that declares the extension in a tools/call's own client capabilities gets a task
// back at once instead of a bounded wait, and polls tasks/get until it is completed, with the
// result ask_human's blocking call would have returned; a person may take hours.
//
// Nothing is stored for a task: the inquiry is the durable task. Its id is the inquiry's key
// and a MAC over the key and the caller's namespace, so an id is unguessable, and one of
// another namespace, or a forged one, names no task. The Go SDK (v1.8.0) has no tasks, so a
// receiving middleware answers tools/call with the task and serves tasks/get, tasks/update and
// tasks/cancel (registered as custom methods so that the SDK routes them); tasks/list and
// tasks/result, gone from the extension, are unknown methods (−32601) under 2026-07-28.
// 2025-11-25's experimental tasks, which the same middleware serves too, are tasks2025.go's.

// TasksExtension is the extension's name in client and server capabilities.
const TasksExtension = "io.modelcontextprotocol/tasks"

// The extension's methods.
const (
	methodTasksGet    = "tasks/get"
	methodTasksUpdate = "tasks/update"
	methodTasksCancel = "tasks/cancel"
)

// TaskPollInterval is how often a client is asked to poll tasks/get: a person answers in
// minutes, so seconds of delay cost nothing.
const TaskPollInterval = 5 * time.Second

// The task statuses ask_human's tasks take: working while nobody has decided, completed once
// the inquiry is settled, however it was (an answer, a default, a decline, a withdrawal).
const (
	taskWorking   = "working"
	taskCompleted = "completed"
)

// taskMACBytes is how much of the HMAC a task id carries: 160 bits, as answer links do.
const taskMACBytes = 20

// taskIDLabel separates a task id's MAC from every other use of the same secret.
const taskIDLabel = "inquiry-bot mcp task v1\x00"

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID string `json:"taskId"`
	// InputResponses (tasks/update) are never asked for: ask_human's tasks take no input.
	InputResponses json.RawMessage `json:"inputResponses,omitempty"`
}

// Task is the extension's Task: times in RFC 3339, ttlMs null (kept as long as the inquiry).
type Task struct {
	TaskID         string `json:"taskId"`
	Status         string `json:"status"`
	StatusMessage  string `json:"statusMessage,omitempty"`
	CreatedAt      string `json:"createdAt"`
	LastUpdatedAt  string `json:"lastUpdatedAt"`
	TTLMs          *int64 `json:"ttlMs"`
	PollIntervalMs int64  `json:"pollIntervalMs,omitempty"`
}

// createTaskResult answers a tools/call with a task (resultType "task", the Task flat).
type createTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Task
}

// getTaskResult answers tasks/get: the Task and, once completed, the tool's result.
type getTaskResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
	Task
	Result *mcp.CallToolResult `json:"result,omitempty"`
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskSlot, in a tools/call's context, asks ask_human for a task: it asks without waiting and
// leaves a pending inquiry here for the middleware to turn into one.
type taskSlot struct {
	rec  *inquiry.Record
	note string // what ask_human would have added to its message
}

type taskSlotKey struct{}

func slotOf(ctx context.Context) *taskSlot {
	s, _ := ctx.Value(taskSlotKey{}).(*taskSlot)
	return s
}

// registerTasks adds the extension's methods to s (the middleware answers them).
func (t *tools) registerTasks(s *mcp.Server) {
	unreachable := func(context.Context, *mcp.ServerSession, *taskParams) (*ackResult, error) {
		return nil, fmt.Errorf("mcptools: a task method reached its placeholder handler")
	}
	for _, m := range []string{methodTasksGet, methodTasksUpdate, methodTasksCancel, methodTasksResult} {
		if err := mcp.AddReceivingCustomMethod(s, m, unreachable); err != nil {
			panic(err) // only a standard method's name fails, and these are none of the SDK's
		}
	}
	s.AddReceivingMiddleware(t.taskMiddleware)
}

// tasksDeclared reports whether caps carry the extension.
func tasksDeclared(caps *mcp.ClientCapabilities) bool {
	if caps == nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}

func (t *tools) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize", "tools/list":
			res, err := next(ctx, method, req)
			if err != nil {
				return res, err
			}
			return t.legacyDeclarations(ctx, method, req, res), nil
		case "tools/call":
			cr, ok := req.(*mcp.CallToolRequest)
			if !ok || cr.Params == nil || cr.Params.Name != AskHuman {
				return next(ctx, method, req)
			}
			legacy := legacyTasks(cr) && taskParamRequested(cr)
			if !legacy && !tasksDeclared(cr.ClientCapabilities()) {
				return next(ctx, method, req)
			}
			secret, ns := t.taskKey(cr.Extra)
			if secret == nil {
				return next(ctx, method, req)
			}
			slot := &taskSlot{}
			res, err := next(context.WithValue(ctx, taskSlotKey{}, slot), method, req)
			if err != nil || slot.rec == nil {
				return res, err // an error, or answer_here: the plain result
			}
			t.log.InfoContext(ctx, "mcp tool call", "tool", AskHuman, "status", "task", "key", slot.rec.Key)
			if legacy {
				// A task was asked for, so a task it is, even of a question settled at once.
				return &legacyCreateTaskResult{Task: t.legacyTask(slot.rec, secret, ns)}, nil
			}
			if slot.rec.Status != inquiry.StatusPending {
				return res, nil // settled at once: the result itself, which a client of tasks takes too
			}
			return &createTaskResult{ResultType: "task", Task: t.task(slot.rec, secret, ns, slot.note)}, nil
		case methodTasksGet, methodTasksUpdate, methodTasksCancel, methodTasksResult:
			tr, ok := req.(*mcp.ServerRequest[*taskParams])
			if !ok {
				return next(ctx, method, req)
			}
			return t.serveTask(ctx, method, tr)
		}
		return next(ctx, method, req)
	}
}

// serveTask answers tasks/get, tasks/update and tasks/cancel.
func (t *tools) serveTask(ctx context.Context, method string, req *mcp.ServerRequest[*taskParams]) (mcp.Result, error) {
	legacy := legacyTasks(req)
	switch {
	case legacy && method == methodTasksUpdate:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tasks/update is the 2026 tasks extension's: on " + protocol20251125 + " poll tasks/get and read tasks/result."}
	case !legacy && method == methodTasksResult:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "tasks/result is gone from the " + TasksExtension + " extension: poll tasks/get, whose result carries the tool's result once completed."}
	case !legacy && req.ProtocolVersion() < protocol2026:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: method + " needs protocol " + protocol20251125 + " or the " + TasksExtension + " extension of " + protocol2026 + ": call get_answer with the question's key instead."}
	case !legacy && !tasksDeclared(req.ClientCapabilities()):
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}}})
		return nil, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Data: data,
			Message: method + " needs the " + TasksExtension + " extension in this request's client capabilities: declare it there, or pick the answer up with get_answer and the question's key."}
	}
	var secret []byte
	var ns string
	if t.taskKey != nil {
		secret, ns = t.taskKey(req.Extra)
	}
	id := ""
	if req.Params != nil {
		id = strings.TrimSpace(req.Params.TaskID)
	}
	key, ok := parseTaskID(secret, ns, id)
	if !ok {
		return nil, unknownTask(id)
	}
	b, err := t.backend(req.Extra)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.failure(err, key).Message}
	}
	if legacy {
		return t.serveLegacyTask(ctx, method, id, key, b, secret, ns)
	}
	switch method {
	case methodTasksUpdate:
		// Nothing is asked of the client: any input it sends is acknowledged and ignored.
		return &ackResult{ResultType: "complete"}, nil
	case methodTasksCancel:
		c, ok := b.(canceller)
		if !ok {
			return &ackResult{ResultType: "complete"}, nil
		}
		if _, err := c.Cancel(ctx, key); err != nil {
			switch code := inquiry.ErrorCode(err); code {
			case inquiry.CodeNotFound:
				return nil, unknownTask(id)
			default:
				// Cancelling is cooperative: a question settled meanwhile, or one this token
				// may not withdraw, ends as it ends, and tasks/get says how.
				t.log.InfoContext(ctx, "mcp task cancel not applied", "key", key, "code", code)
			}
		} else {
			t.log.InfoContext(ctx, "mcp task cancelled", "key", key)
		}
		return &ackResult{ResultType: "complete"}, nil
	}
	rec, err := b.Get(ctx, key, 0)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
			return nil, unknownTask(id)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.failure(err, key).Message}
	}
	out := &getTaskResult{ResultType: "complete", Task: t.task(rec, secret, ns, "")}
	if rec.Status != inquiry.StatusPending {
		out.Result = toolResult(describe(rec), true)
	}
	return out, nil
}

// canceller is a Backend that can withdraw a pending inquiry: both of this package's.
type canceller interface {
	Cancel(ctx context.Context, key string) (*inquiry.Record, error)
}

// Cancel withdraws the pending inquiry key, as b.Token.
func (b ServiceBackend) Cancel(ctx context.Context, key string) (*inquiry.Record, error) {
	rec, err := b.Service.Cancel(inquiry.WithCaller(ctx, b.Token), key)
	return b.linked(rec), err
}

// unknownTask is the refusal of a task id this caller has no task of.
func unknownTask(id string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
		Message: fmt.Sprintf("No task of this caller has the id %s: pass the taskId that ask_human's tools/call returned, exactly as it came, with the same token.", quote(inquiry.OneLine(id, 120)))}
}

// task is rec as a Task: working with where it stands while pending, completed once settled.
func (t *tools) task(rec *inquiry.Record, secret []byte, ns, note string) Task {
	task := Task{
		TaskID:         taskID(secret, ns, rec.Key),
		Status:         taskWorking,
		CreatedAt:      rfc3339(&rec.CreatedAt),
		LastUpdatedAt:  rfc3339(&rec.CreatedAt),
		PollIntervalMs: TaskPollInterval.Milliseconds(),
	}
	for _, v := range rec.Votes {
		if v.At.After(rec.CreatedAt) {
			task.LastUpdatedAt = rfc3339(&v.At)
		}
	}
	if rec.Status != inquiry.StatusPending {
		task.Status = taskCompleted
		if rec.ResolvedAt != nil {
			task.LastUpdatedAt = rfc3339(rec.ResolvedAt)
		}
		task.StatusMessage = "The question is settled: the result says how."
		return task
	}
	msg := "Waiting for a person to answer. " + notYet(rec) + " " + openUntil(rec)
	if len(rec.Channels) > 0 {
		msg += " It is asked through " + strings.Join(rec.Channels, ", ") + "."
	}
	if rec.Links != nil && rec.Links.Answer != "" {
		msg += " A person can answer it at " + rec.Links.Answer + "."
	}
	task.StatusMessage = msg + note
	return task
}

// taskID is the id of the task of inquiry key for namespace ns: the key, a dot, and a MAC over
// both under secret.
func taskID(secret []byte, ns, key string) string {
	return key + "." + base64.RawURLEncoding.EncodeToString(taskMAC(secret, ns, key))
}

func taskMAC(secret []byte, ns, key string) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(taskIDLabel))
	m.Write([]byte(ns))
	m.Write([]byte{0})
	m.Write([]byte(key))
	return m.Sum(nil)[:taskMACBytes]
}

// parseTaskID returns the inquiry key of id when its MAC is the one secret gives it for ns.
func parseTaskID(secret []byte, ns, id string) (string, bool) {
	if len(secret) == 0 || len(id) > inquiry.KeyChars+1+base64.RawURLEncoding.EncodedLen(taskMACBytes) {
		return "", false
	}
	key, mac, ok := strings.Cut(id, ".")
	if !ok || key == "" {
		return "", false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, taskMAC(secret, ns, key)) {
		return "", false
	}
	return key, true
}

// extraOf is the transport's extra of a tool call (the bearer token over HTTP), nil for none.
func extraOf(req *mcp.CallToolRequest) *mcp.RequestExtra {
	if req == nil {
		return nil
	}
	return req.Extra
}
