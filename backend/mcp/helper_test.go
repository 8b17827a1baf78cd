package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as the scripted servers: run with LOOPDESK_MCP_HELPER
// set, TestMain becomes that program instead of running tests. The variable
// reaches it only through the server entry's env, which also proves that env
// is passed.
const helperEnv = "LOOPDESK_MCP_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "server":
		helperServer()
	case "junk":
		fmt.Println("Starting my-server v1.0 (this banner goes to stdout)")
		helperServer()
	case "hang":
		fmt.Fprintln(os.Stderr, "hang: loading a very large index...")
		time.Sleep(time.Hour)
	case "exit":
		fmt.Fprintln(os.Stderr, "exit: config missing: /nonexistent/settings.toml")
		os.Exit(3)
	case "parent":
		helperParent()
	case "big":
		helperBig()
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
	os.Exit(0)
}

// helperConfig is a stdio entry that runs the test binary as helper mode.
func helperConfig(mode string, extraEnv ...string) ServerConfig {
	env := map[string]string{helperEnv: mode}
	for _, kv := range extraEnv {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	return ServerConfig{Command: os.Args[0], Env: env}
}

type echoArgs struct {
	Message string `json:"message" jsonschema:"text to echo"`
}

type addArgs struct {
	Name string `json:"name"`
}

type noArgs struct{}

// newHelperServer is the in-process Go server of the unit tests, served on
// stdio by helperServer and on loopback HTTP by the HTTP tests.
func newHelperServer() *sdk.Server {
	srv := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "echo", Description: "Echoes a message", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest, a echoArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "Echo: " + a.Message}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "fail", Description: "Always an error result"},
		func(ctx context.Context, req *sdk.CallToolRequest, a noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "disk full"}}}, nil, nil
		})
	srv.AddTool(&sdk.Tool{Name: "refuse", Description: "Answers with a JSON-RPC error", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: -32000, Message: "quota exceeded"}
		})
	srv.AddTool(&sdk.Tool{Name: "badschema", Description: "An inputSchema no validator compiles", InputSchema: map[string]any{
		"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strin"}},
	}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{}, nil
	})
	sdk.AddTool(srv, &sdk.Tool{Name: "crash", Description: "Exits the server mid-call"},
		func(ctx context.Context, req *sdk.CallToolRequest, a noArgs) (*sdk.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "crash: segmentation fault (simulated)")
			os.Exit(7)
			return nil, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "slow", Description: "Waits until cancelled"},
		func(ctx context.Context, req *sdk.CallToolRequest, a noArgs) (*sdk.CallToolResult, any, error) {
			mark := os.Getenv("LOOPDESK_MCP_MARK")
			if mark != "" {
				_ = os.WriteFile(mark, []byte("started"), 0o600)
			}
			<-ctx.Done()
			if mark != "" {
				_ = os.WriteFile(mark, []byte("cancelled: "+context.Cause(ctx).Error()), 0o600)
			}
			return nil, nil, ctx.Err()
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "media", Description: "Image, resource and structured content"},
		func(ctx context.Context, req *sdk.CallToolRequest, a noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 1234)},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 99)}},
			}, StructuredContent: map[string]any{"temperature": 21.5}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "add_tool", Description: "Adds a tool (tools/list_changed)"},
		func(ctx context.Context, req *sdk.CallToolRequest, a addArgs) (*sdk.CallToolResult, any, error) {
			sdk.AddTool(srv, &sdk.Tool{Name: a.Name, Description: "added at run time"},
				func(context.Context, *sdk.CallToolRequest, noArgs) (*sdk.CallToolResult, any, error) {
					return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "I am " + a.Name}}}, nil, nil
				})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "added"}}}, nil, nil
		})
	sdk.AddTool(srv, &sdk.Tool{Name: "env", Description: "Its environment"},
		func(ctx context.Context, req *sdk.CallToolRequest, a noArgs) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil, nil
		})
	return srv
}

func helperServer() {
	if once := os.Getenv("LOOPDESK_MCP_ONCE"); once != "" {
		if _, err := os.Stat(once); err == nil {
			fmt.Fprintln(os.Stderr, "once: already ran, refusing to start again")
			os.Exit(5)
		}
		_ = os.WriteFile(once, nil, 0o600)
	}
	if d, err := time.ParseDuration(os.Getenv("LOOPDESK_MCP_DELAY")); err == nil {
		time.Sleep(d) // a slow start (benchmarks)
	}
	fmt.Fprintf(os.Stderr, "helper server pid %d ready\n", os.Getpid())
	if err := newHelperServer().Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper server:", err)
	}
	if os.Getenv("LOOPDESK_MCP_STUBBORN") != "" {
		time.Sleep(time.Hour) // a server that ignores its stdin closing
	}
}

// helperParent is the app in the SIGKILL test: it starts a stdio server,
// prints the server's pid and waits to be killed.
func helperParent() {
	// The server ignores stdin closing, so only the parent-death signal can end it.
	m := Start(Config{Servers: map[string]ServerConfig{"child": helperConfig("server", "LOOPDESK_MCP_STUBBORN=1")}}, Options{})
	_ = m.WaitSettled(context.Background())
	s := m.servers["child"]
	s.mu.Lock()
	c := s.live
	s.mu.Unlock()
	if c == nil {
		fmt.Println("not ready")
		os.Exit(1)
	}
	fmt.Println(c.proc.cmd.Process.Pid)
	time.Sleep(time.Hour)
}

// helperBig is a hand-written stdio server whose one tool returns 10 MB of
// text: written directly, because the race-instrumented SDK server takes tens
// of seconds to encode such a result.
func helperBig() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		reply := `"error":{"code":-32601,"message":"method not found"}`
		switch msg.Method {
		case "initialize":
			reply = `"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"big","version":"1"}}`
		case "tools/list":
			reply = `"result":{"tools":[{"name":"big","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			reply = `"result":{"content":[{"type":"text","text":"HEAD-MARK ` + strings.Repeat("x", 10_000_000) + ` TAIL-MARK"}]}`
		}
		fmt.Fprintf(os.Stdout, "{\"jsonrpc\":\"2.0\",\"id\":%s,%s}\n", msg.ID, reply)
	}
}
