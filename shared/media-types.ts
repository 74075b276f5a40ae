/** The image types the API takes, as a plain list (protocol.ts's schema is made of it; a window reads it first). */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
