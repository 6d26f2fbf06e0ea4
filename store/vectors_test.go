package store

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func randomVector(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func TestQuantizeErrorBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, dim := range []int{1, 7, 384, 768} {
		for range 50 {
			v := randomVector(r, dim)
			var m float32
			for _, x := range v {
				m = max(m, abs32(x))
			}
			got := Quantize(v).Dequantize()
			bound := m/254 + m*1e-6
			for i := range v {
				if e := abs32(got[i] - v[i]); e > bound {
					t.Fatalf("dim %d component %d: |%v - %v| = %v > max|x|/254 = %v", dim, i, got[i], v[i], e, bound)
				}
			}
		}
	}
	if q := Quantize(make([]float32, 4)); q.Scale != 0 || !slices.Equal(q.Data, make([]int8, 4)) {
		t.Fatalf("zero vector quantized to %+v", q)
	}
	if q := Quantize([]float32{-2, 1, 0}); !slices.Equal(q.Data, []int8{-127, 64, 0}) {
		t.Fatalf("Quantize([-2 1 0]) = %v, want [-127 64 0]", q.Data)
	}
}

func TestVectorsRoundTrip(t *testing.T) {
	db := openTest(t)
	r := rand.New(rand.NewPCG(3, 4))
	want := map[uint64][]float32{}
	if err := db.Update(func(tx *Tx) error {
		for id := uint64(1); id <= 20; id++ {
			want[id] = randomVector(r, 16)
			if err := tx.PutVector("emb-a", id, want[id]); err != nil {
				return err
			}
		}
		// Replacing a vector does not count it twice.
		want[5] = randomVector(r, 16)
		if err := tx.PutVector("emb-a", 5, want[5]); err != nil {
			return err
		}
		return tx.PutVector("emb-b", 3, randomVector(r, 8))
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if n := tx.VectorCount("emb-a"); n != 20 {
			t.Errorf("VectorCount(emb-a) = %d, want 20", n)
		}
		if fps := tx.VectorFingerprints(); !slices.Equal(fps, []string{"emb-a", "emb-b"}) {
			t.Errorf("VectorFingerprints = %v", fps)
		}
		var ids []uint64
		err := tx.ForEachVector("emb-a", func(id uint64, q QuantizedVector) error {
			ids = append(ids, id)
			if !slices.Equal(q.Data, Quantize(want[id]).Data) || q.Scale != Quantize(want[id]).Scale {
				t.Errorf("chunk %d: read %v, stored %v", id, q, Quantize(want[id]))
			}
			return nil
		})
		if len(ids) != 20 || !slices.IsSorted(ids) {
			t.Errorf("ForEachVector visited %v, want 1..20 in order", ids)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}

	if err := db.Update(func(tx *Tx) error {
		if err := tx.DeleteVector("emb-a", 7); err != nil {
			return err
		}
		if err := tx.DeleteVector("emb-a", 7); err != nil { // already gone
			return err
		}
		if err := tx.DeleteVector("no-such", 7); err != nil {
			return err
		}
		return tx.deleteVectorsOf(3, tx.VectorFingerprints())
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if n := tx.VectorCount("emb-a"); n != 18 {
			t.Errorf("after deletes VectorCount(emb-a) = %d, want 18", n)
		}
		if n := tx.VectorCount("emb-b"); n != 0 {
			t.Errorf("after deleteVectorsOf(3) VectorCount(emb-b) = %d, want 0", n)
		}
		return tx.ForEachVector("emb-a", func(id uint64, _ QuantizedVector) error {
			if id == 3 || id == 7 {
				t.Errorf("chunk %d still has a vector", id)
			}
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
}

func TestDropVectors(t *testing.T) {
	db := openTest(t)
	if err := db.Update(func(tx *Tx) error {
		for id := uint64(1); id <= 5; id++ {
			if err := tx.PutVector("old", id, []float32{1, 2, 3}); err != nil {
				return err
			}
			if err := tx.PutVector("new", id, []float32{3, 2, 1}); err != nil {
				return err
			}
		}
		return tx.DropVectors("never-stored")
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(func(tx *Tx) error { return tx.DropVectors("old") }); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if fps := tx.VectorFingerprints(); !slices.Equal(fps, []string{"new"}) {
			t.Errorf("after DropVectors(old) fingerprints = %v, want [new]", fps)
		}
		if n := tx.VectorCount("old"); n != 0 {
			t.Errorf("VectorCount(old) = %d after drop", n)
		}
		if n := tx.VectorCount("new"); n != 5 {
			t.Errorf("VectorCount(new) = %d, want 5", n)
		}
		return tx.ForEachVector("old", func(uint64, QuantizedVector) error {
			t.Error("ForEachVector visited a dropped vector")
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
	// Put after a drop starts the count afresh.
	if err := db.Update(func(tx *Tx) error { return tx.PutVector("old", 9, []float32{1}) }); err != nil {
		t.Fatal(err)
	}
	if err := db.View(func(tx *Tx) error {
		if n := tx.VectorCount("old"); n != 1 {
			t.Errorf("VectorCount(old) = %d after re-put, want 1", n)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func TestPutVectorRefusesBrokenInput(t *testing.T) {
	db := openTest(t)
	for _, v := range [][]float32{{1, float32(math.NaN())}, {float32(math.Inf(1))}} {
		if err := db.Update(func(tx *Tx) error { return tx.PutVector("e", 1, v) }); err == nil {
			t.Errorf("PutVector(%v) succeeded", v)
		}
	}
	if err := db.Update(func(tx *Tx) error { return tx.PutVector("", 1, []float32{1}) }); err == nil {
		t.Error("PutVector with an empty fingerprint succeeded")
	}
}

func TestVectorsReadOnAStoreWithoutTheBucket(t *testing.T) {
	db := openTest(t)
	if err := db.View(func(tx *Tx) error {
		if fps := tx.VectorFingerprints(); fps != nil {
			t.Errorf("fingerprints = %v", fps)
		}
		if n := tx.VectorCount("x"); n != 0 {
			t.Errorf("count = %d", n)
		}
		return tx.ForEachVector("x", func(uint64, QuantizedVector) error { return nil })
	}); err != nil {
		t.Fatal(err)
	}
}
