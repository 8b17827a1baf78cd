// Package images prepares the person's images for a model: it checks what a
// file is, and scales a copy down to what providers accept. The original is what the
// journal keeps (store blobs); only the copy sent is scaled.
//
// Contract:
//   - Sniff accepts PNG, JPEG, WebP and GIF by their bytes, never by a file name; anything
//     else is ErrUnsupported. Check also decodes every pixel (a cut file is refused).
//   - Fit returns the image as sent: unchanged when it is within the limits; otherwise scaled
//     (aspect kept, Catmull-Rom) so that its long edge is at most Limits.LongEdge (default
//     1568 px), each side at most Limits.ManyEdge (2000 px) when the request carries more than
//     Limits.Many (20) images, and its encoding at most Limits.MaxBytes (5 MB) — re-encoded as
//     JPEG at lower quality and then smaller sizes until it fits. A scaled GIF or WebP is sent
//     as PNG (Go encodes neither); a scaled image with transparency stays PNG.
//   - OpenAIParts turns a message's text and images into OpenAI-compatible content parts:
//     the text, then one image_url part per image with a data URL of the fitted copy.
//   - Nothing here touches the network or the disk.
package images
