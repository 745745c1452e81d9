package mcptools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/inquiry-bot/bot/inquiry"
)

// The experimental tasks of MCP 2025-11-25 (SEP-1686), which the official TypeScript SDK's
// client drives (client.experimental.tasks.callToolStream): the server declares
// capabilities.tasks at initialize and ask_human's execution.taskSupport "optional" in
// tools/list; a tools/call with a task param gets {task: Task} back; tasks/get is the Task,
// tasks/result blocks until the task is terminal and returns ask_human's result, tasks/cancel
// withdraws the question. Ids are signed as the extension's are (tasks.go).
//
// The Go SDK decodes a tools/call's params into a struct without the task param, so the
// transport moves it into _meta first (liftTaskParam): the HTTP handler for /mcp, and
// TaskParams for a transport such as stdio's.

// protocol20251125 is the revision of the experimental tasks.
const protocol20251125 = "2025-11-25"

// taskParamMeta is the _meta key a tools/call's task param is moved to.
const taskParamMeta = "inquiry-bot/task"

// methodTasksResult is 2025-11-25's tasks/result (gone from the 2026 extension).
const methodTasksResult = "tasks/result"

// relatedTaskMeta names the task a tasks/result's result belongs to.
const relatedTaskMeta = "io.modelcontextprotocol/related-task"

// The 2025-11-25 statuses beyond the extension's: a question withdrawn is cancelled, one
// nobody could be asked (a tool error) failed.
const (
	taskCancelled = "cancelled"
	taskFailed    = "failed"
)

// legacyTask is 2025-11-25's Task: ttl and pollInterval where the extension says ttlMs and
// pollIntervalMs.
type legacyTask struct {
	TaskID        string `json:"taskId"`
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  int64  `json:"pollInterval,omitempty"`
}

// legacyCreateTaskResult is 2025-11-25's CreateTaskResult: the Task nested under task.
type legacyCreateTaskResult struct {
	mcp.ResultBase
	Task legacyTask `json:"task"`
}

// legacyTaskResult is tasks/get's and tasks/cancel's result: the Task, flat.
type legacyTaskResult struct {
	mcp.ResultBase
	legacyTask
}

// mapResult is a result of the SDK's with fields it has no room for, as a JSON object.
type mapResult struct {
	mcp.ResultBase
	m map[string]any
}

func (r *mapResult) MarshalJSON() ([]byte, error) {
	if len(r.Meta) > 0 {
		r.m["_meta"] = r.Meta
	}
	return json.Marshal(r.m)
}

// asMap is res as a JSON object, or nil.
func asMap(res mcp.Result) map[string]any {
	raw, err := json.Marshal(res)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// legacyTasks reports whether req speaks the revision of the experimental tasks.
func legacyTasks(req interface{ ProtocolVersion() string }) bool {
	return req.ProtocolVersion() == protocol20251125
}

// legacyDeclarations adds the experimental tasks' declarations to initialize and tools/list of
// 2025-11-25: the server's tasks capability, and ask_human's taskSupport.
func (t *tools) legacyDeclarations(ctx context.Context, method string, req mcp.Request, res mcp.Result) mcp.Result {
	switch method {
	case "initialize":
		ir, ok := res.(*mcp.InitializeResult)
		if !ok || ir.ProtocolVersion != protocol20251125 {
			return res
		}
		m := asMap(res)
		caps, _ := m["capabilities"].(map[string]any)
		if caps == nil {
			return res
		}
		caps["tasks"] = map[string]any{"cancel": map[string]any{}, "requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}
		return &mapResult{m: m}
	case "tools/list":
		lr, ok := req.(*mcp.ListToolsRequest)
		if !ok || !legacyTasks(lr) {
			return res
		}
		m := asMap(res)
		tools, _ := m["tools"].([]any)
		for _, tl := range tools {
			if tm, ok := tl.(map[string]any); ok && tm["name"] == AskHuman {
				tm["execution"] = map[string]any{"taskSupport": "optional"}
			}
		}
		if m == nil {
			return res
		}
		return &mapResult{m: m}
	}
	return res
}

// legacyTask is rec as 2025-11-25's Task.
func (t *tools) legacyTask(rec *inquiry.Record, secret []byte, ns string) legacyTask {
	task := t.task(rec, secret, ns, "")
	lt := legacyTask{TaskID: task.TaskID, Status: task.Status, StatusMessage: task.StatusMessage,
		CreatedAt: task.CreatedAt, LastUpdatedAt: task.LastUpdatedAt, PollInterval: task.PollIntervalMs}
	switch rec.Status {
	case inquiry.StatusCancelled:
		lt.Status = taskCancelled
	case inquiry.StatusFailed:
		lt.Status = taskFailed // 2025-11-25's failed includes a tool result with isError
	}
	return lt
}

// serveLegacyTask answers 2025-11-25's tasks/get, tasks/result and tasks/cancel of inquiry key.
func (t *tools) serveLegacyTask(ctx context.Context, method, id, key string, b Backend, secret []byte, ns string) (mcp.Result, error) {
	switch method {
	case methodTasksCancel:
		c, ok := b.(canceller)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "This server cannot withdraw a question: let the task run to its end, or ignore it."}
		}
		rec, err := c.Cancel(ctx, key)
		if err != nil {
			if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
				return nil, unknownTask(id)
			}
			if inquiry.ErrorCode(err) == inquiry.CodeAlreadyResolved {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "The task has ended (the question is settled), so it cannot be cancelled: read its result with tasks/result."}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: t.failure(err, key).Message}
		}
		return &legacyTaskResult{legacyTask: t.legacyTask(rec, secret, ns)}, nil
	case methodTasksResult:
		// Blocks until the question is settled: long polls, as long as the request lasts.
		for {
			rec, err := b.Get(ctx, key, MaxWait)
			if err != nil {
				if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
					return nil, unknownTask(id)
				}
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.failure(err, key).Message}
			}
			if rec.Status != inquiry.StatusPending {
				out := toolResult(describe(rec), true)
				out.Meta = mcp.Meta{relatedTaskMeta: map[string]any{"taskId": id}}
				return out, nil
			}
			if ctx.Err() != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "The request ended before anybody answered: call tasks/result again, or poll tasks/get."}
			}
		}
	}
	rec, err := b.Get(ctx, key, 0)
	if err != nil {
		if inquiry.ErrorCode(err) == inquiry.CodeNotFound {
			return nil, unknownTask(id)
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: t.failure(err, key).Message}
	}
	return &legacyTaskResult{legacyTask: t.legacyTask(rec, secret, ns)}, nil
}

// liftTaskParam moves the task param of a tools/call's params into _meta (taskParamMeta),
// where the handlers can read it; other params are returned as they are.
func liftTaskParam(params json.RawMessage) json.RawMessage {
	if !bytes.Contains(params, []byte(`"task"`)) {
		return params
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(params, &m) != nil || m["task"] == nil {
		return params
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := m["_meta"]; ok && json.Unmarshal(raw, &meta) != nil {
		return params
	}
	meta[taskParamMeta] = m["task"]
	raw, err := json.Marshal(meta)
	if err != nil {
		return params
	}
	m["_meta"] = raw
	out, err := json.Marshal(m)
	if err != nil {
		return params
	}
	return out
}

// taskParamRequested reports whether a tools/call asked for a task (2025-11-25's task param,
// lifted into _meta).
func taskParamRequested(req *mcp.CallToolRequest) bool {
	if req.Params == nil {
		return false
	}
	_, ok := req.Params.GetMeta()[taskParamMeta]
	return ok
}

// liftTaskParamHTTP is liftTaskParam for a POST to /mcp of one tools/call.
func liftTaskParamHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		// The SDK's own bound on a body, applied before it reads it.
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, mcp.DefaultMaxRequestBodyBytes))
		r.Body.Close()
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if bytes.Contains(body, []byte(`"tools/call"`)) {
			var msg struct {
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.Method == "tools/call" {
				if lifted := liftTaskParam(msg.Params); !bytes.Equal(lifted, msg.Params) {
					var m map[string]json.RawMessage
					if json.Unmarshal(body, &m) == nil {
						m["params"] = lifted
						if out, err := json.Marshal(m); err == nil {
							body = out
						}
					}
				}
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// TaskParams wraps a transport (stdio's, for `bot mcp`) so that a tools/call's task param of
// 2025-11-25 reaches the tools: the SDK would drop it.
func TaskParams(t mcp.Transport) mcp.Transport { return taskParamTransport{t} }

type taskParamTransport struct{ mcp.Transport }

func (t taskParamTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return taskParamConn{c}, nil
}

type taskParamConn struct{ mcp.Connection }

func (c taskParamConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok && err == nil && req.Method == "tools/call" {
		req.Params = liftTaskParam(req.Params)
	}
	return msg, err
}
