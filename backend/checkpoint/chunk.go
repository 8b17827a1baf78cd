package checkpoint

// Content-defined chunking (a gear rolling hash, as in FastCDC): cut points
// depend on the bytes around them, not on offsets, so inserting or
// replacing a line moves only the chunk it falls in and every other chunk
// keeps its hash. Chunks are 1 KiB to 32 KiB, about 4 KiB on average.
const (
	chunkMin  = 1 << 10
	chunkMax  = 32 << 10
	chunkMask = 1<<12 - 1
)

// gear is a fixed table of pseudo-random words (splitmix64 from a constant
// seed): the cut points, and so the stored chunks, must never change
// between versions.
var gear = func() (g [256]uint64) {
	x := uint64(0x9E3779B97F4A7C15)
	for i := range g {
		x += 0x9E3779B97F4A7C15
		z := x
		z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
		z = (z ^ z>>27) * 0x94D049BB133111EB
		g[i] = z ^ z>>31
	}
	return g
}()

// chunks splits data; the pieces alias data.
func chunks(data []byte) [][]byte {
	var out [][]byte
	for len(data) > 0 {
		n := cut(data)
		out = append(out, data[:n])
		data = data[n:]
	}
	return out
}

func cut(data []byte) int {
	if len(data) <= chunkMin {
		return len(data)
	}
	end := min(len(data), chunkMax)
	var h uint64
	for i := chunkMin; i < end; i++ {
		h = h<<1 + gear[data[i]]
		if h&chunkMask == 0 {
			return i + 1
		}
	}
	return end
}
