/**
 * A picked image file as a small square data URL (cover-cropped), so profile pictures stay far
 * below the service's size limit and need no file hosting.
 */
export async function imageFileToDataUrl(file: File, size = 128): Promise<string> {
  if (!file.type.startsWith('image/')) throw new Error('Choose an image file (PNG, JPEG, GIF or WebP).');
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    throw new Error('This image could not be read. Try another file.');
  }
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const context = canvas.getContext('2d');
  if (context === null) throw new Error('This browser cannot resize images.');
  const side = Math.min(bitmap.width, bitmap.height);
  const sx = (bitmap.width - side) / 2;
  const sy = (bitmap.height - side) / 2;
  context.imageSmoothingQuality = 'high';
  context.drawImage(bitmap, sx, sy, side, side, 0, 0, size, size);
  bitmap.close();
  // JPEG is far smaller for photos; PNG keeps transparency for small logos.
  const jpeg = canvas.toDataURL('image/jpeg', 0.85);
  const png = file.type === 'image/png' || file.type === 'image/gif' ? canvas.toDataURL('image/png') : null;
  return png !== null && png.length < jpeg.length * 1.5 ? png : jpeg;
}
