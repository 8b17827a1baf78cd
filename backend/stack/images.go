package stack

import (
	"context"
	"errors"
	"fmt"

	"github.com/loopdesk/loopdesk/backend/images"
	"github.com/loopdesk/loopdesk/backend/store"
)

// ErrInvalidInput marks input a front end should not have passed on (an image that is not
// one, an empty message, a relative folder); the window classifies it as "invalid".
var ErrInvalidInput = errors.New("invalid input")

// MaxImageBytes bounds one attached file: the original is kept in the journal whole.
const MaxImageBytes = 30 << 20

// RawImage is an image file's name and bytes.
type RawImage struct {
	Name string
	Data []byte
}

// StoreImages checks each image and stores it as a blob, returning the references a user
// row carries (the window's Send and `loopdesk run --image`). The first bad image fails the
// call before anything is stored.
func StoreImages(ctx context.Context, db *store.DB, imgs []RawImage) ([]store.ImageRef, error) {
	checked := make([]images.Image, len(imgs))
	for i, in := range imgs {
		data := in.Data
		if len(data) > MaxImageBytes {
			return nil, fmt.Errorf("%w: image %q is %d MB; at most %d MB", ErrInvalidInput, in.Name, len(data)>>20, MaxImageBytes>>20)
		}
		var err error
		if checked[i], err = images.Check(data); err != nil {
			return nil, fmt.Errorf("%w: image %q: %v", ErrInvalidInput, in.Name, err)
		}
	}
	refs := make([]store.ImageRef, len(imgs))
	for i, im := range checked {
		hash, err := db.PutBlob(ctx, store.Blob{MIME: im.MIME, Width: im.Width, Height: im.Height, Data: im.Data})
		if err != nil {
			return nil, err
		}
		refs[i] = store.ImageRef{Hash: hash, MIME: im.MIME, Width: im.Width, Height: im.Height, Name: imgs[i].Name}
	}
	return refs, nil
}
