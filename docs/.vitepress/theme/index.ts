import type { Theme } from 'vitepress';
import DefaultTheme from 'vitepress/theme';
import { preloadSearchIndex } from './searchIndex.js';
import './searchIndex.css';

/** VitePress's default theme, with the search index loaded before the first search (./searchIndex.ts). */
export default {
  extends: DefaultTheme,
  enhanceApp() {
    if (typeof window !== 'undefined') preloadSearchIndex();
  },
} satisfies Theme;
