package inference_test

import (
	"context"
	"fmt"

	"github.com/memd-dev/memd/inference"
)

// counter is a toy model: after token t comes t+1, and token 9 ends.
type counter struct{ logits [][]float32 }

func (c *counter) Decode(batch []inference.BatchToken) error {
	c.logits = c.logits[:0]
	for _, t := range batch {
		l := make([]float32, 10)
		l[min(t.Token+1, 9)] = 1
		c.logits = append(c.logits, l)
	}
	return nil
}
func (c *counter) Logits(i int) []float32          { return c.logits[i] }
func (c *counter) RemoveSeq(seq, from int32) error { return nil }
func (c *counter) NVocab() int                     { return 10 }
func (c *counter) Piece(tok int32) string          { return fmt.Sprint(tok) }
func (c *counter) IsEOG(tok int32) bool            { return tok == 9 }

func ExampleScheduler() {
	m := &counter{}
	s, err := inference.NewScheduler(m, m, inference.SchedulerConfig{Slots: 2, BatchSize: 8, ContextPerSlot: 32})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	c, err := s.Submit(context.Background(), inference.Request{
		Prompt:  []int32{3},
		Stop:    []string{"7"},
		OnToken: func(p string) error { fmt.Println("piece", p); return nil },
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q %s, %d tokens\n", c.Text, c.Finish, c.Generated)
	// Output:
	// piece 4
	// piece 5
	// piece 6
	// "456" stop, 4 tokens
}
