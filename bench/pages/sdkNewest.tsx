/**
 * The official SDK's bench page with the newest `@stackframe/js` release that works against the emulator (the
 * `stackframe-js-newest` alias).
 */
import { scriptStart } from './t0.js';
import { StackClientApp } from 'stackframe-js-newest';
import { marks } from './common.js';
import { startSdkPage, type SdkAppClass } from './sdkPage.js';

Object.assign(marks, scriptStart);
startSdkPage(StackClientApp as unknown as SdkAppClass);
