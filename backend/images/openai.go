package images

import "encoding/base64"

// Part is one OpenAI chat content part: {"type":"text","text":…} or
// {"type":"image_url","image_url":{"url":"data:…"}}.
type Part struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *ImageURL `json:"image_url,omitempty"`
}

// ImageURL carries an image inline as a data URL.
type ImageURL struct {
	URL string `json:"url"`
}

// DataURL is data as a data: URL.
func DataURL(mime string, data []byte) string {
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)
}

// OpenAIParts is a user message's content with its images: the text (when not empty), then
// one image_url part per image, each fitted to lim for a request carrying total images
// (total counts every image of the request, not just this message's). An image that cannot
// be read fails the whole message: the caller marks it excluded and asks again without it.
func OpenAIParts(text string, imgs [][]byte, lim Limits, total int) ([]Part, error) {
	parts := make([]Part, 0, len(imgs)+1)
	if text != "" {
		parts = append(parts, Part{Type: "text", Text: text})
	}
	for _, data := range imgs {
		img, err := Fit(data, lim, total)
		if err != nil {
			return nil, err
		}
		parts = append(parts, Part{Type: "image_url", ImageURL: &ImageURL{URL: DataURL(img.MIME, img.Data)}})
	}
	return parts, nil
}
