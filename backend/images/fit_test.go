package images

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// picture is a w×h image with detail (noise), so its encodings have realistic sizes. It
// writes Pix directly: Set per pixel is slow under -race.
func picture(w, h int, alpha bool) image.Image {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for y := range h {
		for x := range w {
			i := img.PixOffset(x, y)
			a := uint8(255)
			if alpha && x < w/4 {
				a = 100
			}
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x), uint8(y), uint8(r.Uint32()), a
		}
	}
	return img
}

// flat is a plain w×h image: cheap to encode where the byte size does not matter.
func flat(w, h int) image.Image { return image.NewGray(image.Rect(0, 0, w, h)) }

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestFitScalesTheLongEdgeAndKeepsTheAspect(t *testing.T) {
	cases := []struct {
		name         string
		data         []byte
		wantW, wantH int
		wantMIME     string
		same         bool
	}{
		{"a small PNG goes as it is", encodePNG(t, picture(800, 600, false)), 800, 600, PNG, true},
		{"a wide JPEG", encodeJPEG(t, picture(1600, 400, false)), 1568, 392, JPEG, false},
		{"a tall PNG", encodePNG(t, picture(300, 1600, false)), 294, 1568, PNG, false},
		{"exactly the limit", encodeJPEG(t, picture(1568, 100, false)), 1568, 100, JPEG, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Fit(c.data, Limits{}, 1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Width != c.wantW || got.Height != c.wantH || got.MIME != c.wantMIME {
				t.Fatalf("got %dx%d %s; want %dx%d %s", got.Width, got.Height, got.MIME, c.wantW, c.wantH, c.wantMIME)
			}
			if same := bytes.Equal(got.Data, c.data); same != c.same {
				t.Fatalf("original bytes kept = %v; want %v", same, c.same)
			}
			dec, err := Sniff(got.Data) // what is sent decodes to what Fit says
			if err != nil || dec.Width != got.Width || dec.Height != got.Height || dec.MIME != got.MIME {
				t.Fatalf("sent bytes decode to %+v, %v", dec, err)
			}
		})
	}
}

func TestFitKeepsEveryImageUnderTheByteLimit(t *testing.T) {
	src := encodePNG(t, picture(700, 700, false)) // noise: a PNG of about 1.5 MB
	lim := Limits{MaxBytes: 150 << 10}
	if len(src) <= lim.MaxBytes {
		t.Fatalf("the fixture is only %d bytes", len(src))
	}
	got, err := Fit(src, lim, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) > lim.MaxBytes || got.MIME != JPEG {
		t.Fatalf("%d bytes as %s; want a JPEG of at most %d", len(got.Data), got.MIME, lim.MaxBytes)
	}
	// With transparency there is no JPEG to fall back to: fewer pixels instead.
	alpha := encodePNG(t, picture(700, 700, true))
	got, err = Fit(alpha, lim, 1)
	if err != nil || len(got.Data) > lim.MaxBytes || got.MIME != PNG || got.Width >= 700 {
		t.Fatalf("transparent: %d bytes %s %dx%d, %v", len(got.Data), got.MIME, got.Width, got.Height, err)
	}
}

// More than 20 images in a request: each side at most 2000 px, whatever the long-edge limit.
func TestFitTightensEachSideWhenARequestCarriesManyImages(t *testing.T) {
	src := encodeJPEG(t, picture(2100, 300, false))
	lim := Limits{LongEdge: 4096}
	for _, c := range []struct {
		count, wantW int
	}{{1, 2100}, {20, 2100}, {21, 2000}, {60, 2000}} {
		got, err := Fit(src, lim, c.count)
		if err != nil {
			t.Fatal(err)
		}
		if got.Width != c.wantW || got.Height != c.wantW/7 {
			t.Errorf("%d images: %dx%d; want %dx%d", c.count, got.Width, got.Height, c.wantW, c.wantW/7)
		}
	}
	// The default long edge (1568) is already inside 2000: the rule changes nothing there.
	if got, _ := Fit(src, Limits{}, 21); got.Width != 1568 {
		t.Errorf("default limits, 21 images: width %d; want 1568", got.Width)
	}
}

func TestSniffRefusesWhatIsNotAnImage(t *testing.T) {
	var g bytes.Buffer
	if err := gif.Encode(&g, picture(40, 30, false), nil); err != nil {
		t.Fatal(err)
	}
	if img, err := Sniff(g.Bytes()); err != nil || img.MIME != GIF || img.Width != 40 {
		t.Fatalf("GIF: %+v, %v", img, err)
	}
	for _, bad := range [][]byte{[]byte("%PDF-1.7 not an image"), []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), {}} {
		if _, err := Fit(bad, Limits{}, 1); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%q: %v; want ErrUnsupported", bad, err)
		}
	}
	if _, err := Check(encodePNG(t, picture(10, 10, false))[:60]); err == nil {
		t.Error("a cut PNG was accepted")
	}
}

func TestOpenAIPartsCarryDataURLsWithinTheLimits(t *testing.T) {
	big := encodePNG(t, flat(1600, 800))
	parts, err := OpenAIParts("what is this?", [][]byte{big, encodeJPEG(t, picture(100, 50, false))}, Limits{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[0].Type != "text" || parts[0].Text != "what is this?" || parts[1].Type != "image_url" {
		t.Fatalf("parts = %+v", parts)
	}
	url := parts[1].ImageURL.URL
	prefix := "data:image/png;base64,"
	if !strings.HasPrefix(url, prefix) {
		t.Fatalf("url = %.40s…", url)
	}
	data, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(url, prefix))
	if err != nil {
		t.Fatal(err)
	}
	img, err := Sniff(data)
	if err != nil || img.Width != 1568 || img.Height != 784 {
		t.Fatalf("the data URL decodes to %dx%d, %v; want 1568x784", img.Width, img.Height, err)
	}
	if parts, _ := OpenAIParts("", [][]byte{big}, Limits{}, 1); len(parts) != 1 || parts[0].Type != "image_url" {
		t.Fatalf("an image with no text: %+v", parts)
	}
}

func TestHashNamesTheBytes(t *testing.T) {
	a := encodePNG(t, picture(10, 10, false))
	if Hash(a) != Hash(bytes.Clone(a)) || Hash(a) == Hash(append(bytes.Clone(a), 0)) || len(Hash(a)) != 64 {
		t.Fatal("Hash is not a function of the bytes alone")
	}
}

func TestSeesImagesDefaultsFromTheModelName(t *testing.T) {
	for model, want := range map[string]bool{
		"gpt-4.1-mini": true, "claude-sonnet-4-5": true, "gemini-2.5-pro": true, "qwen2.5-vl-72b": true,
		"gpt-3.5-turbo": false, "deepseek-chat": false, "Qwen3-Coder-30B": false, "llama-3.3-70b": false, "llama-3.2-90b-vision": true,
	} {
		if got := SeesImages(model); got != want {
			t.Errorf("SeesImages(%q) = %v; want %v", model, got, want)
		}
	}
}
