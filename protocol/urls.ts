/** The OAuth callback URL without its `code` and `state` parameters (and without a fragment). */
export function stripOAuthCallbackParams(url: string | URL): string {
  const cleaned = new URL(url);
  cleaned.searchParams.delete('code');
  cleaned.searchParams.delete('state');
  cleaned.hash = '';
  return cleaned.toString();
}
