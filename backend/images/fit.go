package images

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // decodes GIF for image.Decode
	"image/jpeg"
	"image/png"
	"net/http"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // decodes WebP for image.Decode
)

// The types a person may attach.
const (
	PNG  = "image/png"
	JPEG = "image/jpeg"
	WebP = "image/webp"
	GIF  = "image/gif"
)

// ErrUnsupported: the bytes are not a PNG, JPEG, WebP or GIF image.
var ErrUnsupported = errors.New("not a PNG, JPEG, WebP or GIF image")

// Limits are what a provider accepts per image; the zero value of a field takes its default.
type Limits struct {
	LongEdge int // px; default 1568
	MaxBytes int // default 5 MB
	Many     int // more images than this in one request tighten each side to ManyEdge; default 20
	ManyEdge int // px; default 2000
}

func (l Limits) withDefaults() Limits {
	if l.LongEdge <= 0 {
		l.LongEdge = 1568
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 5 << 20
	}
	if l.Many <= 0 {
		l.Many = 20
	}
	if l.ManyEdge <= 0 {
		l.ManyEdge = 2000
	}
	return l
}

// Image is an encoded image and what it is.
type Image struct {
	Data   []byte
	MIME   string
	Width  int
	Height int
}

// Hash names an image's bytes: the key its blob is stored (and deduplicated) under.
func Hash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Sniff says what data is, with its size in pixels.
func Sniff(data []byte) (Image, error) {
	mime := http.DetectContentType(data)
	switch mime {
	case PNG, JPEG, WebP, GIF:
	default:
		return Image{}, fmt.Errorf("%w (the file looks like %s)", ErrUnsupported, mime)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("read %s: %w", mime, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("read %s: %w: no pixels", mime, ErrUnsupported)
	}
	return Image{Data: data, MIME: mime, Width: cfg.Width, Height: cfg.Height}, nil
}

// Check is Sniff that also decodes every pixel, so a cut or corrupt file is refused when it
// is attached rather than when a request is being built.
func Check(data []byte) (Image, error) {
	img, err := Sniff(data)
	if err != nil {
		return Image{}, err
	}
	if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
		return Image{}, fmt.Errorf("read %s: %w", img.MIME, err)
	}
	return img, nil
}

// Fit returns data as it is sent in a request carrying count images (see the package doc).
func Fit(data []byte, lim Limits, count int) (Image, error) {
	lim = lim.withDefaults()
	img, err := Sniff(data)
	if err != nil {
		return Image{}, err
	}
	edge := maxEdge(lim, count)
	if max(img.Width, img.Height) <= edge && len(data) <= lim.MaxBytes {
		return img, nil // within every limit: the original bytes, untouched
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("decode %s: %w", img.MIME, err)
	}
	return shrink(src, img.MIME, edge, lim.MaxBytes)
}

// maxEdge is the longest side allowed for one image of a request with count images.
func maxEdge(lim Limits, count int) int {
	if count > lim.Many {
		return min(lim.LongEdge, lim.ManyEdge)
	}
	return lim.LongEdge
}

// shrink scales src to fit edge, then lowers the encoding until it fits maxBytes.
func shrink(src image.Image, mime string, edge, maxBytes int) (Image, error) {
	w, h := scaled(src.Bounds().Dx(), src.Bounds().Dy(), edge)
	for {
		dst := resize(src, w, h)
		out, outMIME, err := encode(dst, mime, maxBytes)
		if err != nil {
			return Image{}, err
		}
		if len(out) <= maxBytes {
			return Image{Data: out, MIME: outMIME, Width: w, Height: h}, nil
		}
		if w <= 16 || h <= 16 {
			return Image{}, fmt.Errorf("image still %d bytes at %dx%d: over the %d byte limit", len(out), w, h, maxBytes)
		}
		w, h = w*3/4, h*3/4 // too many bytes even as JPEG: fewer pixels
	}
}

// scaled is w×h with its long edge at most edge, aspect kept, never below 1 px.
func scaled(w, h, edge int) (int, int) {
	long := max(w, h)
	if long <= edge {
		return w, h
	}
	return max(1, w*edge/long), max(1, h*edge/long)
}

func resize(src image.Image, w, h int) image.Image {
	if src.Bounds().Dx() == w && src.Bounds().Dy() == h {
		return src
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
	return dst
}

// encode writes img in the type it came in (PNG for GIF and WebP); past maxBytes, an opaque
// image is tried as JPEG at falling quality.
func encode(img image.Image, mime string, maxBytes int) ([]byte, string, error) {
	var buf bytes.Buffer
	if mime == JPEG {
		err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90})
		return fitJPEG(img, buf.Bytes(), maxBytes, err)
	}
	if err := png.Encode(&buf, img); err != nil {
		return nil, "", err
	}
	if buf.Len() <= maxBytes || !opaque(img) {
		return buf.Bytes(), PNG, nil
	}
	return fitJPEG(img, nil, maxBytes, nil)
}

// fitJPEG lowers the JPEG quality until the bytes fit (or the quality floor is reached).
func fitJPEG(img image.Image, first []byte, maxBytes int, err error) ([]byte, string, error) {
	if err != nil {
		return nil, "", err
	}
	out := first
	for q := 80; (out == nil || len(out) > maxBytes) && q >= 40; q -= 20 {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: q}); err != nil {
			return nil, "", err
		}
		out = buf.Bytes()
	}
	return out, JPEG, nil
}

func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}
