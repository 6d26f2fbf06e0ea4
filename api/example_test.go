package api_test

import (
	"context"
	"fmt"
	"log"

	"github.com/memd-dev/memd"
	"github.com/memd-dev/memd/api"
	"github.com/memd-dev/memd/internal/config"
)

// A client asks a running daemon for the chunks that answer a query.
func ExampleClient_Recall() {
	c := api.NewClient(config.RuntimeSocketPath())
	defer c.Close()
	res, err := c.Recall(context.Background(), memd.RecallRequest{
		Query:   "tomato watering",
		K:       5,
		Filters: memd.Filters{Tags: []string{"garden"}},
	})
	if err != nil {
		log.Fatal(err) // an *memd.Error when the daemon refused; api.ErrNotRunning when none answers
	}
	for _, h := range res.Hits {
		fmt.Printf("%s:%d-%d %.2f\n", h.Path, h.StartLine, h.EndLine, h.Score)
	}
}

// Events follow indexing as it happens.
func ExampleClient_Events() {
	c := api.NewClient(config.RuntimeSocketPath())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := c.Events(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	for {
		ev, err := s.Next()
		if err != nil {
			return // io.EOF when the daemon stops
		}
		fmt.Println(ev.Type, ev.Path, ev.Pending)
	}
}
