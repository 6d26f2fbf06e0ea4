package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/clitext"
)

// chatOptions are the flags of memctl chat.
type chatOptions struct {
	req      memd.ChatRequest
	noMemory bool
}

func newChatCmd(a *app) *cobra.Command {
	var o chatOptions
	cmd := &cobra.Command{
		Use:   `chat ["question"]`,
		Short: "Ask your notes a question; the answer streams, then its sources",
		Long: `chat asks memd's generator model to answer from your notes. The answer
streams to the terminal, then the notes it cites follow as path:line lines
(as grep and editors' quickfix lists read them).

With no question, chat reads questions line by line from stdin and keeps the
conversation, so a follow-up can say "and when?". An empty line or EOF ends it.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.req.Filters.Folder != "" {
				var err error
				if o.req.Filters.Folder, err = clitext.AbsPath(o.req.Filters.Folder); err != nil {
					return err
				}
			}
			if o.noMemory {
				off := false
				o.req.Memory = &off
			}
			ctx := cmd.Context()
			c, err := a.client(ctx)
			if err != nil {
				return err
			}
			defer c.Close()
			if len(args) > 0 {
				_, err := a.chatTurn(ctx, c, o.req, []memd.Message{{Role: memd.RoleUser, Content: strings.Join(args, " ")}})
				return err
			}
			return a.chatLoop(ctx, c, o.req, cmd.InOrStdin())
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&o.req.K, "k", "k", 0, fmt.Sprintf("how many chunks of your notes to give the model (default %d)", memd.DefaultChatK))
	fl.StringVar(&o.req.Filters.Folder, "folder", "", "only notes of this registered folder")
	fl.StringArrayVar(&o.req.Filters.Tags, "tag", nil, "only notes with this tag (repeat: every tag must be on the note)")
	fl.BoolVar(&o.noMemory, "no-memory", false, "a plain chat with the model: no notes recalled")
	fl.IntVar(&o.req.MaxTokens, "max-tokens", 0, fmt.Sprintf("cap the answer's length in tokens (default %d)", memd.DefaultChatMaxTokens))
	fl.Float32Var(&o.req.Sampling.Temperature, "temperature", 0, "sampling temperature; 0 always gives the same answer")
	return cmd
}

// chatTurn asks one question with the conversation so far (msgs ends with
// it) and prints the answer: streamed, or whole as JSON with --json.
func (a *app) chatTurn(ctx context.Context, c *api.Client, base memd.ChatRequest, msgs []memd.Message) (memd.ChatResult, error) {
	req := base
	req.Messages = msgs
	if a.json {
		res, err := c.Chat(ctx, req, nil)
		if err != nil {
			return res, err
		}
		return res, a.printJSON(res)
	}
	wrote := false
	res, err := c.Chat(ctx, req, func(ev memd.ChatEvent) error {
		if ev.Type == memd.ChatDelta {
			if !wrote {
				ev.Delta = strings.TrimLeft(ev.Delta, " ")
			}
			wrote = wrote || ev.Delta != ""
			_, err := io.WriteString(a.out, ev.Delta)
			return err
		}
		return nil
	})
	if wrote {
		fmt.Fprintln(a.out)
	}
	if err != nil {
		return res, err
	}
	clitext.Sources(a.out, res)
	for _, w := range res.Warnings {
		fmt.Fprintln(a.errOut, "warning:", w)
	}
	return res, nil
}

// chatLoop reads questions from in and keeps the conversation.
func (a *app) chatLoop(ctx context.Context, c *api.Client, base memd.ChatRequest, in io.Reader) error {
	interactive := false
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		interactive = true
		fmt.Fprintln(a.errOut, "Ask your notes; an empty line or Ctrl-D ends the chat.")
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var history []memd.Message
	for {
		if interactive {
			fmt.Fprint(a.errOut, "> ")
		}
		if !sc.Scan() {
			return sc.Err()
		}
		q := strings.TrimSpace(sc.Text())
		if q == "" {
			return nil
		}
		msgs := append(history, memd.Message{Role: memd.RoleUser, Content: q})
		res, err := a.chatTurn(ctx, c, base, msgs)
		if err != nil {
			var e *memd.Error
			if errors.As(err, &e) && e.Code == memd.CodeBadRequest {
				fmt.Fprintln(a.errOut, "memctl:", e.Message)
				continue // the conversation goes on without that turn
			}
			return err
		}
		history = append(msgs, res.Message)
		if interactive || !a.json {
			fmt.Fprintln(a.out)
		}
	}
}
