package store

import (
	"encoding/binary"
	"fmt"
	"math"

	bolt "github.com/memd-dev/memd/internal/bbolt"
)

// counterVectorsPrefix + fingerprint counts that fingerprint's vectors in the
// meta bucket, so VectorCount never walks a bucket.
const counterVectorsPrefix = "count.vectors."

// vectorInt8 is the encoding's version byte: int8 components with one
// float32 scale, little-endian, after it.
const vectorInt8 = 1

// QuantizedVector is a vector stored as int8 components: component i is
// Data[i] × Scale. Quantize makes it symmetric, Scale = max|x| / 127.
type QuantizedVector struct {
	Scale float32
	Data  []int8
}

// Quantize rounds v to int8 with one scale for the whole vector. Each
// component of the result differs from v's by at most max|v| / 254.
func Quantize(v []float32) QuantizedVector {
	var m float32
	for _, x := range v {
		m = max(m, abs32(x))
	}
	q := QuantizedVector{Data: make([]int8, len(v))}
	if m == 0 || math.IsNaN(float64(m)) || math.IsInf(float64(m), 0) {
		return q
	}
	q.Scale = m / 127
	inv := 127 / m
	for i, x := range v {
		q.Data[i] = int8(math.Round(float64(x * inv)))
	}
	return q
}

// Dequantize returns the vector q stands for.
func (q QuantizedVector) Dequantize() []float32 {
	out := make([]float32, len(q.Data))
	for i, x := range q.Data {
		out[i] = float32(x) * q.Scale
	}
	return out
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func encodeVector(q QuantizedVector) []byte {
	b := make([]byte, 5+len(q.Data))
	b[0] = vectorInt8
	binary.LittleEndian.PutUint32(b[1:], math.Float32bits(q.Scale))
	for i, x := range q.Data {
		b[5+i] = byte(x)
	}
	return b
}

func decodeVector(b []byte) (QuantizedVector, error) {
	if len(b) < 5 || b[0] != vectorInt8 {
		return QuantizedVector{}, fmt.Errorf("vector record is damaged or of an unknown version")
	}
	q := QuantizedVector{
		Scale: math.Float32frombits(binary.LittleEndian.Uint32(b[1:])),
		Data:  make([]int8, len(b)-5),
	}
	for i, x := range b[5:] {
		q.Data[i] = int8(x)
	}
	return q, nil
}

// PutVector stores v, quantized to int8, as chunk's vector under the embedder
// fingerprint, replacing any vector it had under that fingerprint.
func (t *Tx) PutVector(fingerprint string, chunk uint64, v []float32) error {
	if fingerprint == "" {
		return fmt.Errorf("put vector of chunk %d: empty embedder fingerprint", chunk)
	}
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("put vector of chunk %d: component %d is %v; the embedder returned a broken vector", chunk, i, x)
		}
	}
	b, err := t.bucket(bucketVectors).CreateBucketIfNotExists([]byte(fingerprint))
	if err != nil {
		return fmt.Errorf("put vector of chunk %d: %w", chunk, err)
	}
	key := u64key(chunk)
	existed := b.Get(key) != nil
	if err := b.Put(key, encodeVector(Quantize(v))); err != nil {
		return fmt.Errorf("put vector of chunk %d: %w", chunk, err)
	}
	if existed {
		return nil
	}
	t.addCounter(counterVectorsPrefix+fingerprint, 1)
	return nil
}

// DeleteVector removes chunk's vector under fingerprint; a missing one is not
// an error.
func (t *Tx) DeleteVector(fingerprint string, chunk uint64) error {
	b := t.vectorBucket(fingerprint)
	if b == nil {
		return nil
	}
	key := u64key(chunk)
	if b.Get(key) == nil {
		return nil
	}
	if err := b.Delete(key); err != nil {
		return fmt.Errorf("delete vector of chunk %d: %w", chunk, err)
	}
	t.addCounter(counterVectorsPrefix+fingerprint, -1)
	return nil
}

// deleteVectorsOf removes chunk's vector under each of fps (the store's
// fingerprints, read once by the caller for all the chunks it removes).
func (t *Tx) deleteVectorsOf(chunk uint64, fps []string) error {
	for _, fp := range fps {
		if err := t.DeleteVector(fp, chunk); err != nil {
			return err
		}
	}
	return nil
}

// ForEachVector calls fn for every vector stored under fingerprint, in chunk
// id order. fn may keep q: its Data is a copy.
func (t *Tx) ForEachVector(fingerprint string, fn func(chunk uint64, q QuantizedVector) error) error {
	b := t.vectorBucket(fingerprint)
	if b == nil {
		return nil
	}
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if len(k) != 8 {
			return fmt.Errorf("vectors %s: key %x is damaged", fingerprint, k)
		}
		id := binary.BigEndian.Uint64(k)
		q, err := decodeVector(v)
		if err != nil {
			return fmt.Errorf("vector of chunk %d under %s: %w", id, fingerprint, err)
		}
		if err := fn(id, q); err != nil {
			return err
		}
	}
	return nil
}

// VectorCount is how many vectors are stored under fingerprint, read in O(1).
func (t *Tx) VectorCount(fingerprint string) int {
	return int(t.counter(counterVectorsPrefix + fingerprint))
}

// VectorFingerprints lists the embedder fingerprints that have a vector
// bucket, in byte order.
func (t *Tx) VectorFingerprints() []string {
	var out []string
	_ = t.bucket(bucketVectors).ForEachBucket(func(k []byte) error {
		out = append(out, string(k))
		return nil
	})
	return out
}

// DropVectors removes every vector stored under fingerprint: an old
// embedder's, once the new one has caught up. Dropping an absent fingerprint
// is not an error.
func (t *Tx) DropVectors(fingerprint string) error {
	if t.vectorBucket(fingerprint) == nil {
		return nil
	}
	if err := t.bucket(bucketVectors).DeleteBucket([]byte(fingerprint)); err != nil {
		return fmt.Errorf("drop vectors %s: %w", fingerprint, err)
	}
	delete(t.counterDeltas, counterVectorsPrefix+fingerprint)
	return t.bucket(bucketMeta).Delete([]byte(counterVectorsPrefix + fingerprint))
}

func (t *Tx) vectorBucket(fingerprint string) *bolt.Bucket {
	if fingerprint == "" {
		return nil
	}
	return t.bucket(bucketVectors).Bucket([]byte(fingerprint))
}

// Meta keys of the vector lifecycle. Only the accessors below read and
// write them, so the serving side and the re-embed agree by type, not by a
// string each spells.
const (
	metaVectorsActive      = "vectors.active"
	metaVectorsNext        = "vectors.next"
	metaVectorsModelPrefix = "vectors.model."
)

// VectorState says which embedder's vectors serve recall and which are
// being caught up.
type VectorState struct {
	// Active is the fingerprint whose vectors are complete and serve; it
	// changes only when another has a vector for every chunk.
	Active string
	// Next is the fingerprint being re-embedded while Active serves, or "".
	Next string
}

// VectorState reads the vector lifecycle's state.
func (t *Tx) VectorState() VectorState {
	return VectorState{Active: string(t.Meta(metaVectorsActive)), Next: string(t.Meta(metaVectorsNext))}
}

// SetVectorState records s.
func (t *Tx) SetVectorState(s VectorState) error {
	if err := t.SetMeta(metaVectorsNext, []byte(s.Next)); err != nil {
		return err
	}
	return t.SetMeta(metaVectorsActive, []byte(s.Active))
}

// SwitchVectors makes fingerprint's vectors the active ones once a re-embed
// is complete: it records it, clears Next and drops every other
// fingerprint's vectors. It reports whether anything changed.
func (t *Tx) SwitchVectors(fingerprint string) (bool, error) {
	if t.VectorState().Active == fingerprint {
		return false, nil
	}
	for _, other := range t.VectorFingerprints() {
		if other != fingerprint {
			if err := t.DropVectors(other); err != nil {
				return false, err
			}
		}
	}
	return true, t.SetVectorState(VectorState{Active: fingerprint})
}

// VectorModel is the model file recorded as the maker of fingerprint's
// vectors, or "".
func (t *Tx) VectorModel(fingerprint string) string {
	return string(t.Meta(metaVectorsModelPrefix + fingerprint))
}

// SetVectorModel records path as the model file that makes fingerprint's
// vectors, so a later start can load it again to embed queries while
// another embedder re-embeds.
func (t *Tx) SetVectorModel(fingerprint, path string) error {
	return t.SetMeta(metaVectorsModelPrefix+fingerprint, []byte(path))
}
