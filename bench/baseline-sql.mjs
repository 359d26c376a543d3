// The statements of the bare baseline (bench/baseline-server.mjs) and of the Nest floor
// (bench/nest-floor-server.mjs): each answer is one statement that builds the JSON the service sends.

const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
const iso = (column) => `to_char(${column} AT TIME ZONE 'UTC', ${ISO})`;

/** The v1 order of the row `o` as JSON, nulls omitted (json_strip_nulls), items in creation order. */
export const ORDER_JSON = `json_strip_nulls(json_build_object(
    'orderId', o.order_id, 'customerId', o.customer_id, 'status', o.status,
    'totalAmount', o.total_amount::float8, 'currency', o.currency,
    'createdAt', ${iso('o.created_at')}, 'updatedAt', ${iso('o.updated_at')},
    'confirmedAt', ${iso('o.confirmed_at')}, 'shippedAt', ${iso('o.shipped_at')},
    'deliveredAt', ${iso('o.delivered_at')}, 'cancelledAt', ${iso('o.cancelled_at')},
    'refundedAt', ${iso('o.refunded_at')},
    'deliveryAddress', CASE WHEN o.delivery_street_name IS NOT NULL
      THEN json_build_object('streetName', o.delivery_street_name, 'zipCode', o.delivery_zip_code) END,
    'items', COALESCE((
      SELECT json_agg(json_build_object('itemId', i.item_id, 'productId', i.product_id,
        'productName', i.product_name, 'quantity', i.quantity, 'unitPrice', i.unit_price::float8)
        ORDER BY i.created_at, i.item_id)
      FROM order_items i WHERE i.order_id = o.order_id), '[]'::json),
    'note', o.note, 'trackingNumber', o.tracking_number, 'carrier', o.carrier,
    'cancellationReason', o.cancellation_reason, 'refundReason', o.refund_reason))`;

export const READ_ORDER = `SELECT ${ORDER_JSON} AS body FROM orders o WHERE o.order_id = $1`;

/** A customer's offset page, newest first, with items and the exact total, in one statement. */
export const CUSTOMER_PAGE = `
  SELECT json_build_object(
    'content', COALESCE((SELECT json_agg(${ORDER_JSON} ORDER BY o.created_at DESC, o.order_id DESC)
      FROM (SELECT * FROM orders WHERE customer_id = $1
            ORDER BY created_at DESC, order_id DESC LIMIT $2 OFFSET $3) o), '[]'::json),
    'page', $4::int, 'size', $2::int, 'totalElements', t.n,
    'totalPages', ceil(t.n::numeric / $2::int)::int) AS body
  FROM (SELECT count(*)::int AS n FROM orders WHERE customer_id = $1) t`;
