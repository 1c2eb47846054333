package main

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
)

// Small media payloads for the content tools and resources, built at
// start-up so that the fixture carries no opaque binary literals.
var (
	pngBase64 = base64.StdEncoding.EncodeToString(tinyPNG())
	wavBase64 = base64.StdEncoding.EncodeToString(tinyWAV())
)

// tinyPNG encodes a 2×2 image, one pixel of each primary colour and white.
func tinyPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(0, 0, color.RGBA{R: 255, A: 255})
	img.Set(1, 0, color.RGBA{G: 255, A: 255})
	img.Set(0, 1, color.RGBA{B: 255, A: 255})
	img.Set(1, 1, color.RGBA{R: 255, G: 255, B: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	return b.Bytes()
}

// tinyWAV is a RIFF/WAVE file: 8 kHz, mono, 8-bit PCM, 16 samples of a
// square wave.
func tinyWAV() []byte {
	const rate, samples = 8000, 16
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16))   // fmt chunk size
	le(uint16(1))    // PCM
	le(uint16(1))    // mono
	le(uint32(rate)) // sample rate
	le(uint32(rate)) // byte rate
	le(uint16(1))    // block align
	le(uint16(8))    // bits per sample
	b.WriteString("data")
	le(uint32(samples))
	for i := range samples {
		if i%4 < 2 {
			b.WriteByte(0xC0)
		} else {
			b.WriteByte(0x40)
		}
	}
	return b.Bytes()
}
