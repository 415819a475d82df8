import { useEffect } from 'react';
import type { CustomerProductModel } from '../../../../client/index.js';
import { useBrokerClient, useItem, useProducts } from '../../../../client/react/index.js';
import { ErrorText } from '../../components/Alert.js';
import { Button } from '../../components/Button.js';
import { Badge, Card, Empty, Loading, PageHeader } from '../../components/Card.js';
import { RequireUser } from '../../components/RequireUser.js';
import { formatDate } from '../../lib/format.js';
import { useAction } from '../../lib/useAction.js';
import { navigate, useLocation } from '../../router.js';
import { T } from '../../testids.js';

/**
 * What the shop sells: the emulator's demo project configures these products (its `payments.*`); a client cannot list a
 * project's catalogue, so an app names what it sells, as here.
 */
const CATALOGUE = [
  { productId: 'credit_pack', name: '100 credits', price: '$5, once', stacks: true },
  { productId: 'starter', name: 'Starter plan', price: '$5 a month: 200 credits each month', stacks: false },
  { productId: 'pro', name: 'Pro plan', price: '$20 a month: 1,000 credits each month', stacks: false },
] as const;

/** Back from the checkout (`?checkout=done`): every tab refetches what this user has, and the address is cleaned. */
function useCheckoutReturn(userId: string) {
  const client = useBrokerClient();
  const { search } = useLocation();
  const back = search.get('checkout') === 'done';
  useEffect(() => {
    if (!back) return;
    void client.refreshPayments({ userId });
    navigate('/shop', { replace: true });
  }, [back, client, userId]);
}

function Credits({ userId }: { userId: string }) {
  const credits = useItem({ userId }, 'credits');
  return (
    <Card title="Your credits" description="Every open tab shows the same number, from one request.">
      {credits === null ? (
        <Loading />
      ) : (
        <div className="stat">
          <span className="stat-value" data-testid={T.shopCredits} data-quantity={credits.quantity}>
            {credits.nonNegativeQuantity}
          </span>
          <span className="stat-label">{credits.displayName}</span>
        </div>
      )}
    </Card>
  );
}

function Catalogue({ userId, owned }: { userId: string; owned: CustomerProductModel[] }) {
  const client = useBrokerClient();
  const buy = useAction(async (productId: string) => {
    const url = await client.createCheckoutUrl(
      { userId },
      { productId, returnUrl: `${location.origin}/shop?checkout=done` },
    );
    // The service's checkout page (the emulator's own, in test mode), which comes back to returnUrl.
    location.assign(url);
  });
  const plan = owned.find((p) => p.switchOptions.length > 0);
  return (
    <Card title="Buy" description="Test mode: the checkout completes without payment.">
      <ul className="list">
        {CATALOGUE.map((product) => {
          const has = owned.some((p) => p.id === product.productId);
          const switching = plan !== undefined && plan.switchOptions.some((o) => o.productId === product.productId);
          return (
            <li
              key={product.productId}
              className="list-row"
              data-testid={T.shopProductRow}
              data-product={product.productId}
            >
              <div className="list-main">
                <b>{product.name}</b>
                <div className="muted small">{product.price}</div>
              </div>
              <div className="list-actions">
                <Button
                  size="small"
                  variant="primary"
                  disabled={has && !product.stacks}
                  busy={buy.busy}
                  onClick={() => void buy.run(product.productId)}
                  testid={T.shopBuy}
                >
                  {has && !product.stacks ? 'Owned' : switching ? `Switch to ${product.name}` : 'Buy'}
                </Button>
              </div>
            </li>
          );
        })}
      </ul>
      <ErrorText error={buy.error} />
    </Card>
  );
}

function OwnedRow({ userId, product }: { userId: string; product: CustomerProductModel }) {
  const client = useBrokerClient();
  const cancel = useAction(() => client.cancelSubscription({ userId }, { productId: product.id! }));
  const { subscription } = product;
  return (
    <li className="list-row" data-testid={T.shopOwnedRow} data-product={product.id ?? ''}>
      <div className="list-main">
        <b>{product.displayName}</b> {product.quantity > 1 && <Badge>×{product.quantity}</Badge>}
        <div className="muted small">
          {subscription === null
            ? 'Yours for good, or until its paid period ends.'
            : `Renews ${subscription.currentPeriodEndMillis === null ? '' : formatDate(subscription.currentPeriodEndMillis)}`}
        </div>
        <ErrorText error={cancel.error} />
      </div>
      {subscription !== null && product.id !== null && (
        <div className="list-actions">
          <Button size="small" busy={cancel.busy} onClick={() => void cancel.run()} testid={T.shopCancel}>
            Cancel
          </Button>
        </div>
      )}
    </li>
  );
}

/** `/shop`: the user's credits and products (one customer, shared by every tab), and a test-mode checkout. */
export function Shop() {
  return <RequireUser what="the shop">{(user) => <ShopFor userId={user.id} />}</RequireUser>;
}

function ShopFor({ userId }: { userId: string }) {
  useCheckoutReturn(userId);
  const { items: owned } = useProducts({ userId });
  return (
    <div className="stack-lg">
      <PageHeader
        title="Shop"
        lead="Items and products from the project's configuration: credits, a pack of them, and two monthly plans."
      />
      <Credits userId={userId} />
      <Catalogue userId={userId} owned={owned} />
      <Card title="What you own">
        {owned.length === 0 ? (
          <Empty>Nothing yet.</Empty>
        ) : (
          <ul className="list">
            {owned.map((product) => (
              <OwnedRow key={product.id ?? product.displayName} userId={userId} product={product} />
            ))}
          </ul>
        )}
      </Card>
    </div>
  );
}
