package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api/apitest"
	"github.com/memd-dev/memd/server/servertest"
)

func chatFake() *apitest.Service {
	svc := recallFake()
	svc.ChatAnswer = "Water them deeply [1]."
	return svc
}

func TestChatStreamsThenSources(t *testing.T) {
	sock := servertest.Socket(t, chatFake())
	out, _, err := run(t, sock, "chat", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	want := "Water them deeply [1].\n\nsources:\n/n/garden.md:3: [1] Garden > Tomatoes\n"
	if out != want {
		t.Fatalf("got\n%q\nwant\n%q", out, want)
	}
}

func TestChatJSON(t *testing.T) {
	svc := chatFake()
	sock := servertest.Socket(t, svc)
	out, _, err := run(t, sock, "chat", "--json", "-k", "3", "--no-memory", "tomatoes")
	if err != nil {
		t.Fatal(err)
	}
	var res memd.ChatResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if res.Message.Content != "Water them deeply [1]." || res.Finish != memd.FinishStop {
		t.Fatalf("result %+v", res)
	}
	if r := svc.LastChat; r.K != 3 || r.UsesMemory() || len(r.Messages) != 1 {
		t.Fatalf("request %+v; want k 3, memory off, one message", r)
	}
}

func TestChatLoopKeepsHistory(t *testing.T) {
	svc := chatFake()
	sock := servertest.Socket(t, svc)
	var out, errOut bytes.Buffer
	a := &app{out: &out, errOut: &errOut, noStart: true}
	root := newRoot(a, []string{"--socket", sock, "--data", t.TempDir(), "chat"})
	root.SetIn(strings.NewReader("tomatoes\nand when?\n\nnot asked\n"))
	if err := a.execute(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	msgs := svc.LastChat.Messages
	if len(msgs) != 3 || msgs[0].Content != "tomatoes" || msgs[1].Role != memd.RoleAssistant || msgs[2].Content != "and when?" {
		t.Fatalf("second turn sent %+v; want the first exchange before it", msgs)
	}
	if n := strings.Count(out.String(), "Water them deeply"); n != 2 {
		t.Fatalf("%d answers printed, want 2 (an empty line ends the chat):\n%s", n, out.String())
	}
}

func TestChatWithoutGenerator(t *testing.T) {
	sock := servertest.Socket(t, apitest.New())
	_, _, err := run(t, sock, "chat", "tomatoes")
	if err == nil || !strings.Contains(describe(err), "generator") {
		t.Fatalf("error %v; want the daemon's message about configuring a generator", err)
	}
}
