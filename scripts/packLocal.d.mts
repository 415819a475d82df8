/** Where `npm run pack:local` puts the tarballs (scripts/packLocal.mjs): .packs/ at the repository's root. */
export declare const PACKS_FOLDER: string;

/** Builds and packs authbroker and authbroker-emulator into `folder`; the two tarballs' paths. */
export declare function packBoth(folder: string): { authbroker: string; emulator: string };
