/*
 * png_write.h: writes an 8-bit RGB image with libpng, for the examples that draw (heat, mandelbrot).
 */
#ifndef KRT_EXAMPLE_PNG_WRITE_H
#define KRT_EXAMPLE_PNG_WRITE_H

#include <png.h>
#include <stdint.h>
#include <stdio.h>

/* rgb holds height rows of width * 3 bytes. Returns 0 on success, -1 (with a message) on failure. */
static inline int ex_write_png(const char *path, uint32_t width, uint32_t height, const uint8_t *rgb)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        fprintf(stderr, "%s: libpng could not start\n", path);
        return -1;
    }
    /* libpng reports errors by longjmp to here. */
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(f);
        fprintf(stderr, "%s: libpng failed to write the image\n", path);
        return -1;
    }
    png_init_io(png, f);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++)
        png_write_row(png, (png_const_bytep)(rgb + (size_t)y * width * 3));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return fclose(f) == 0 ? 0 : -1;
}

/* A blue -> red -> yellow -> white colour ramp for t in [0, 1], for heat maps. */
static inline void ex_colour_ramp(float t, uint8_t out[3])
{
    if (!(t >= 0.0f))
        t = 0.0f;
    if (t > 1.0f)
        t = 1.0f;
    float r = t < 0.33f ? t / 0.33f : 1.0f;
    float g = t < 0.33f ? 0.0f : (t < 0.66f ? (t - 0.33f) / 0.33f : 1.0f);
    float b = t < 0.33f ? 1.0f - t / 0.33f * 0.7f : (t < 0.66f ? 0.3f - (t - 0.33f) / 0.33f * 0.3f
                                                               : (t - 0.66f) / 0.34f);
    out[0] = (uint8_t)(r * 255.0f + 0.5f);
    out[1] = (uint8_t)(g * 255.0f + 0.5f);
    out[2] = (uint8_t)(b * 255.0f + 0.5f);
}

#endif
