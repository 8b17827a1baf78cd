package images

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/store"
)

// The request side of images, for the request builder (backend/provider's, being rewritten):
// where a user row becomes a user message, its content is UserRowContent's result.

// BlobGetter gives a stored image's bytes (*store.DB).
type BlobGetter interface {
	GetBlob(ctx context.Context, hash string) (store.Blob, error)
}

// Sent says whether an image of a user row goes into requests: not when a provider refused
// it (excluded), and not to a model that takes no images.
func Sent(ref store.ImageRef, vision bool) bool { return vision && !ref.Excluded }

// CountImages is how many images a request built from rows carries: the total the
// more-than-20 rule is applied to.
func CountImages(rows []store.Chunk, vision bool) (int, error) {
	n := 0
	for _, r := range rows {
		if r.Kind != store.KindUser {
			continue
		}
		var p store.UserPayload
		if err := json.Unmarshal(r.Payload, &p); err != nil {
			return 0, fmt.Errorf("row %d: %w", r.Seq, err)
		}
		for _, im := range p.Images {
			if Sent(im, vision) {
				n++
			}
		}
	}
	return n, nil
}

// UserRowContent is the "content" of the user message for row p: its text as a plain string
// when no image of it is sent (so a text-only request is byte for byte what it would be with no image support), else the text
// and one image_url part per image sent, each a data URL of the copy fitted to lim for a
// request carrying total images. The originals in the journal are not changed.
func UserRowContent(ctx context.Context, db BlobGetter, p store.UserPayload, lim Limits, total int, vision bool) (any, error) {
	var datas [][]byte
	for _, im := range p.Images {
		if !Sent(im, vision) {
			continue
		}
		b, err := db.GetBlob(ctx, im.Hash)
		if err != nil {
			return nil, fmt.Errorf("image %s: %w", im.Hash, err)
		}
		datas = append(datas, b.Data)
	}
	if len(datas) == 0 {
		return p.Text, nil
	}
	return OpenAIParts(p.Text, datas, lim, total)
}
