package vector

import (
	"context"
	"testing"
)

func TestFloorSeparatesNoise(t *testing.T) {
	db, e := hybridStore(t)
	v := NewServing(db, ServingConfig{Embedder: e})
	defer v.Close()
	sv, _ := v.Acquire()
	defer sv.Release()
	floor, err := sv.Floor(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	best := func(q string) float32 { return sv.Index.Search(e.vector(q), 1, nil)[0].Score }
	if noise := best("xylophone lessons"); noise > floor {
		t.Errorf("a query about nothing reaches %v, over the floor %v", noise, floor)
	}
	if related := best("vehicle"); related <= floor {
		t.Errorf("a related query reaches %v, not over the floor %v", related, floor)
	}
	if again, _ := sv.Floor(context.Background()); again != floor {
		t.Errorf("floor moved from %v to %v", floor, again)
	}
}
