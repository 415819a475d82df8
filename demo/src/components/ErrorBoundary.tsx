import { Component, type ReactNode } from 'react';
import { ErrorText } from './Alert.js';
import { Card } from './Card.js';

/** A page that throws while rendering shows a sentence instead of a blank screen. */
export class ErrorBoundary extends Component<{ children: ReactNode }, { error: unknown }> {
  override state: { error: unknown } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error };
  }

  override render() {
    if (this.state.error !== null) {
      return (
        <Card className="narrow" title="This page could not be shown">
          <ErrorText error={this.state.error} />
          <button type="button" className="btn btn-secondary" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
        </Card>
      );
    }
    return this.props.children;
  }
}
