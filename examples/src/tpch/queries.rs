//! The 22 TPC-H queries, written from the TPC-H specification (revision 3) with its validation
//! substitution parameters (the "Query Validation" clause of each query, e.g. Q1's DELTA = 90,
//! Q11's FRACTION = 0.0001), as SQL that DataFusion parses. Departures from the
//! specification's text, all of form only:
//! - Q15's view `revenue0` is a common table expression (`WITH revenue0 (supplier_no,
//!   total_revenue) as (…)`), so that the query is one statement (no `create view` and
//!   `drop view` around it);
//! - the row counts the specification returns outside the SQL text ("the first 100 selected
//!   rows": Q2 100, Q3 10, Q10 20, Q18 100, Q21 100) are `LIMIT` clauses;
//! - Q1's `interval '90' day (3)` is written without the interval's precision, `(3)`.
//!
//! The parameters are the same at every scale factor, including Q11's FRACTION (0.0001, the
//! validation value; a run by the specification's rules at another scale factor would use
//! 0.0001 / SF), so a run at SF 1 reproduces the specification's validation answers.
//!
//! Each query lists the tables it reads (so that a table that failed to load fails exactly the
//! queries that read it) and the output columns of its `ORDER BY`, in order (empty when the
//! result is one row).

/// One TPC-H query.
#[derive(Clone, Copy, Debug)]
pub struct Query {
    /// 1 to 22.
    pub number: u8,
    /// The statement.
    pub sql: &'static str,
    /// The tables it reads.
    pub tables: &'static [&'static str],
    /// The output columns its `ORDER BY` sorts by, most significant first.
    pub order_by: &'static [&'static str],
}

/// The eight TPC-H tables.
pub const TABLES: [&str; 8] = [
    "region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem",
];

/// Q1, Pricing Summary Report: DELTA = 90.
const Q1: &str = "
select
    l_returnflag,
    l_linestatus,
    sum(l_quantity) as sum_qty,
    sum(l_extendedprice) as sum_base_price,
    sum(l_extendedprice * (1 - l_discount)) as sum_disc_price,
    sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) as sum_charge,
    avg(l_quantity) as avg_qty,
    avg(l_extendedprice) as avg_price,
    avg(l_discount) as avg_disc,
    count(*) as count_order
from
    lineitem
where
    l_shipdate <= date '1998-12-01' - interval '90' day
group by
    l_returnflag,
    l_linestatus
order by
    l_returnflag,
    l_linestatus";

/// Q2, Minimum Cost Supplier: SIZE = 15, TYPE = BRASS, REGION = EUROPE.
const Q2: &str = "
select
    s_acctbal,
    s_name,
    n_name,
    p_partkey,
    p_mfgr,
    s_address,
    s_phone,
    s_comment
from
    part,
    supplier,
    partsupp,
    nation,
    region
where
    p_partkey = ps_partkey
    and s_suppkey = ps_suppkey
    and p_size = 15
    and p_type like '%BRASS'
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = 'EUROPE'
    and ps_supplycost = (
        select
            min(ps_supplycost)
        from
            partsupp,
            supplier,
            nation,
            region
        where
            p_partkey = ps_partkey
            and s_suppkey = ps_suppkey
            and s_nationkey = n_nationkey
            and n_regionkey = r_regionkey
            and r_name = 'EUROPE'
    )
order by
    s_acctbal desc,
    n_name,
    s_name,
    p_partkey
limit 100";

/// Q3, Shipping Priority: SEGMENT = BUILDING, DATE = 1995-03-15.
const Q3: &str = "
select
    l_orderkey,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    o_orderdate,
    o_shippriority
from
    customer,
    orders,
    lineitem
where
    c_mktsegment = 'BUILDING'
    and c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate < date '1995-03-15'
    and l_shipdate > date '1995-03-15'
group by
    l_orderkey,
    o_orderdate,
    o_shippriority
order by
    revenue desc,
    o_orderdate
limit 10";

/// Q4, Order Priority Checking: DATE = 1993-07-01.
const Q4: &str = "
select
    o_orderpriority,
    count(*) as order_count
from
    orders
where
    o_orderdate >= date '1993-07-01'
    and o_orderdate < date '1993-07-01' + interval '3' month
    and exists (
        select
            *
        from
            lineitem
        where
            l_orderkey = o_orderkey
            and l_commitdate < l_receiptdate
    )
group by
    o_orderpriority
order by
    o_orderpriority";

/// Q5, Local Supplier Volume: REGION = ASIA, DATE = 1994-01-01.
const Q5: &str = "
select
    n_name,
    sum(l_extendedprice * (1 - l_discount)) as revenue
from
    customer,
    orders,
    lineitem,
    supplier,
    nation,
    region
where
    c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and l_suppkey = s_suppkey
    and c_nationkey = s_nationkey
    and s_nationkey = n_nationkey
    and n_regionkey = r_regionkey
    and r_name = 'ASIA'
    and o_orderdate >= date '1994-01-01'
    and o_orderdate < date '1994-01-01' + interval '1' year
group by
    n_name
order by
    revenue desc";

/// Q6, Forecasting Revenue Change: DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24.
const Q6: &str = "
select
    sum(l_extendedprice * l_discount) as revenue
from
    lineitem
where
    l_shipdate >= date '1994-01-01'
    and l_shipdate < date '1994-01-01' + interval '1' year
    and l_discount between 0.06 - 0.01 and 0.06 + 0.01
    and l_quantity < 24";

/// Q7, Volume Shipping: NATION1 = FRANCE, NATION2 = GERMANY.
const Q7: &str = "
select
    supp_nation,
    cust_nation,
    l_year,
    sum(volume) as revenue
from
    (
        select
            n1.n_name as supp_nation,
            n2.n_name as cust_nation,
            extract(year from l_shipdate) as l_year,
            l_extendedprice * (1 - l_discount) as volume
        from
            supplier,
            lineitem,
            orders,
            customer,
            nation n1,
            nation n2
        where
            s_suppkey = l_suppkey
            and o_orderkey = l_orderkey
            and c_custkey = o_custkey
            and s_nationkey = n1.n_nationkey
            and c_nationkey = n2.n_nationkey
            and (
                (n1.n_name = 'FRANCE' and n2.n_name = 'GERMANY')
                or (n1.n_name = 'GERMANY' and n2.n_name = 'FRANCE')
            )
            and l_shipdate between date '1995-01-01' and date '1996-12-31'
    ) as shipping
group by
    supp_nation,
    cust_nation,
    l_year
order by
    supp_nation,
    cust_nation,
    l_year";

/// Q8, National Market Share: NATION = BRAZIL, REGION = AMERICA,
/// TYPE = ECONOMY ANODIZED STEEL.
const Q8: &str = "
select
    o_year,
    sum(case when nation = 'BRAZIL' then volume else 0 end) / sum(volume) as mkt_share
from
    (
        select
            extract(year from o_orderdate) as o_year,
            l_extendedprice * (1 - l_discount) as volume,
            n2.n_name as nation
        from
            part,
            supplier,
            lineitem,
            orders,
            customer,
            nation n1,
            nation n2,
            region
        where
            p_partkey = l_partkey
            and s_suppkey = l_suppkey
            and l_orderkey = o_orderkey
            and o_custkey = c_custkey
            and c_nationkey = n1.n_nationkey
            and n1.n_regionkey = r_regionkey
            and r_name = 'AMERICA'
            and s_nationkey = n2.n_nationkey
            and o_orderdate between date '1995-01-01' and date '1996-12-31'
            and p_type = 'ECONOMY ANODIZED STEEL'
    ) as all_nations
group by
    o_year
order by
    o_year";

/// Q9, Product Type Profit Measure: COLOR = green.
const Q9: &str = "
select
    nation,
    o_year,
    sum(amount) as sum_profit
from
    (
        select
            n_name as nation,
            extract(year from o_orderdate) as o_year,
            l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity as amount
        from
            part,
            supplier,
            lineitem,
            partsupp,
            orders,
            nation
        where
            s_suppkey = l_suppkey
            and ps_suppkey = l_suppkey
            and ps_partkey = l_partkey
            and p_partkey = l_partkey
            and o_orderkey = l_orderkey
            and s_nationkey = n_nationkey
            and p_name like '%green%'
    ) as profit
group by
    nation,
    o_year
order by
    nation,
    o_year desc";

/// Q10, Returned Item Reporting: DATE = 1993-10-01.
const Q10: &str = "
select
    c_custkey,
    c_name,
    sum(l_extendedprice * (1 - l_discount)) as revenue,
    c_acctbal,
    n_name,
    c_address,
    c_phone,
    c_comment
from
    customer,
    orders,
    lineitem,
    nation
where
    c_custkey = o_custkey
    and l_orderkey = o_orderkey
    and o_orderdate >= date '1993-10-01'
    and o_orderdate < date '1993-10-01' + interval '3' month
    and l_returnflag = 'R'
    and c_nationkey = n_nationkey
group by
    c_custkey,
    c_name,
    c_acctbal,
    c_phone,
    n_name,
    c_address,
    c_comment
order by
    revenue desc
limit 20";

/// Q11, Important Stock Identification: NATION = GERMANY, FRACTION = 0.0001.
const Q11: &str = "
select
    ps_partkey,
    sum(ps_supplycost * ps_availqty) as value
from
    partsupp,
    supplier,
    nation
where
    ps_suppkey = s_suppkey
    and s_nationkey = n_nationkey
    and n_name = 'GERMANY'
group by
    ps_partkey
having
    sum(ps_supplycost * ps_availqty) > (
        select
            sum(ps_supplycost * ps_availqty) * 0.0001
        from
            partsupp,
            supplier,
            nation
        where
            ps_suppkey = s_suppkey
            and s_nationkey = n_nationkey
            and n_name = 'GERMANY'
    )
order by
    value desc";

/// Q12, Shipping Modes and Order Priority: SHIPMODE1 = MAIL, SHIPMODE2 = SHIP,
/// DATE = 1994-01-01.
const Q12: &str = "
select
    l_shipmode,
    sum(case
        when o_orderpriority = '1-URGENT' or o_orderpriority = '2-HIGH' then 1
        else 0
    end) as high_line_count,
    sum(case
        when o_orderpriority <> '1-URGENT' and o_orderpriority <> '2-HIGH' then 1
        else 0
    end) as low_line_count
from
    orders,
    lineitem
where
    o_orderkey = l_orderkey
    and l_shipmode in ('MAIL', 'SHIP')
    and l_commitdate < l_receiptdate
    and l_shipdate < l_commitdate
    and l_receiptdate >= date '1994-01-01'
    and l_receiptdate < date '1994-01-01' + interval '1' year
group by
    l_shipmode
order by
    l_shipmode";

/// Q13, Customer Distribution: WORD1 = special, WORD2 = requests.
const Q13: &str = "
select
    c_count,
    count(*) as custdist
from
    (
        select
            c_custkey,
            count(o_orderkey)
        from
            customer left outer join orders on
                c_custkey = o_custkey
                and o_comment not like '%special%requests%'
        group by
            c_custkey
    ) as c_orders (c_custkey, c_count)
group by
    c_count
order by
    custdist desc,
    c_count desc";

/// Q14, Promotion Effect: DATE = 1995-09-01.
const Q14: &str = "
select
    100.00 * sum(case
        when p_type like 'PROMO%' then l_extendedprice * (1 - l_discount)
        else 0
    end) / sum(l_extendedprice * (1 - l_discount)) as promo_revenue
from
    lineitem,
    part
where
    l_partkey = p_partkey
    and l_shipdate >= date '1995-09-01'
    and l_shipdate < date '1995-09-01' + interval '1' month";

/// Q15, Top Supplier: DATE = 1996-01-01; the view `revenue0` as a common table expression.
const Q15: &str = "
with revenue0 (supplier_no, total_revenue) as (
    select
        l_suppkey,
        sum(l_extendedprice * (1 - l_discount))
    from
        lineitem
    where
        l_shipdate >= date '1996-01-01'
        and l_shipdate < date '1996-01-01' + interval '3' month
    group by
        l_suppkey
)
select
    s_suppkey,
    s_name,
    s_address,
    s_phone,
    total_revenue
from
    supplier,
    revenue0
where
    s_suppkey = supplier_no
    and total_revenue = (
        select
            max(total_revenue)
        from
            revenue0
    )
order by
    s_suppkey";

/// Q16, Parts/Supplier Relationship: BRAND = Brand#45, TYPE = MEDIUM POLISHED,
/// SIZE1..8 = 49, 14, 23, 45, 19, 3, 36, 9.
const Q16: &str = "
select
    p_brand,
    p_type,
    p_size,
    count(distinct ps_suppkey) as supplier_cnt
from
    partsupp,
    part
where
    p_partkey = ps_partkey
    and p_brand <> 'Brand#45'
    and p_type not like 'MEDIUM POLISHED%'
    and p_size in (49, 14, 23, 45, 19, 3, 36, 9)
    and ps_suppkey not in (
        select
            s_suppkey
        from
            supplier
        where
            s_comment like '%Customer%Complaints%'
    )
group by
    p_brand,
    p_type,
    p_size
order by
    supplier_cnt desc,
    p_brand,
    p_type,
    p_size";

/// Q17, Small-Quantity-Order Revenue: BRAND = Brand#23, CONTAINER = MED BOX.
const Q17: &str = "
select
    sum(l_extendedprice) / 7.0 as avg_yearly
from
    lineitem,
    part
where
    p_partkey = l_partkey
    and p_brand = 'Brand#23'
    and p_container = 'MED BOX'
    and l_quantity < (
        select
            0.2 * avg(l_quantity)
        from
            lineitem
        where
            l_partkey = p_partkey
    )";

/// Q18, Large Volume Customer: QUANTITY = 300.
const Q18: &str = "
select
    c_name,
    c_custkey,
    o_orderkey,
    o_orderdate,
    o_totalprice,
    sum(l_quantity)
from
    customer,
    orders,
    lineitem
where
    o_orderkey in (
        select
            l_orderkey
        from
            lineitem
        group by
            l_orderkey
        having
            sum(l_quantity) > 300
    )
    and c_custkey = o_custkey
    and o_orderkey = l_orderkey
group by
    c_name,
    c_custkey,
    o_orderkey,
    o_orderdate,
    o_totalprice
order by
    o_totalprice desc,
    o_orderdate
limit 100";

/// Q19, Discounted Revenue: QUANTITY1 = 1, QUANTITY2 = 10, QUANTITY3 = 20,
/// BRAND1 = Brand#12, BRAND2 = Brand#23, BRAND3 = Brand#34.
const Q19: &str = "
select
    sum(l_extendedprice * (1 - l_discount)) as revenue
from
    lineitem,
    part
where
    (
        p_partkey = l_partkey
        and p_brand = 'Brand#12'
        and p_container in ('SM CASE', 'SM BOX', 'SM PACK', 'SM PKG')
        and l_quantity >= 1 and l_quantity <= 1 + 10
        and p_size between 1 and 5
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    )
    or
    (
        p_partkey = l_partkey
        and p_brand = 'Brand#23'
        and p_container in ('MED BAG', 'MED BOX', 'MED PKG', 'MED PACK')
        and l_quantity >= 10 and l_quantity <= 10 + 10
        and p_size between 1 and 10
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    )
    or
    (
        p_partkey = l_partkey
        and p_brand = 'Brand#34'
        and p_container in ('LG CASE', 'LG BOX', 'LG PACK', 'LG PKG')
        and l_quantity >= 20 and l_quantity <= 20 + 10
        and p_size between 1 and 15
        and l_shipmode in ('AIR', 'AIR REG')
        and l_shipinstruct = 'DELIVER IN PERSON'
    )";

/// Q20, Potential Part Promotion: COLOR = forest, DATE = 1994-01-01, NATION = CANADA.
const Q20: &str = "
select
    s_name,
    s_address
from
    supplier,
    nation
where
    s_suppkey in (
        select
            ps_suppkey
        from
            partsupp
        where
            ps_partkey in (
                select
                    p_partkey
                from
                    part
                where
                    p_name like 'forest%'
            )
            and ps_availqty > (
                select
                    0.5 * sum(l_quantity)
                from
                    lineitem
                where
                    l_partkey = ps_partkey
                    and l_suppkey = ps_suppkey
                    and l_shipdate >= date '1994-01-01'
                    and l_shipdate < date '1994-01-01' + interval '1' year
            )
    )
    and s_nationkey = n_nationkey
    and n_name = 'CANADA'
order by
    s_name";

/// Q21, Suppliers Who Kept Orders Waiting: NATION = SAUDI ARABIA.
const Q21: &str = "
select
    s_name,
    count(*) as numwait
from
    supplier,
    lineitem l1,
    orders,
    nation
where
    s_suppkey = l1.l_suppkey
    and o_orderkey = l1.l_orderkey
    and o_orderstatus = 'F'
    and l1.l_receiptdate > l1.l_commitdate
    and exists (
        select
            *
        from
            lineitem l2
        where
            l2.l_orderkey = l1.l_orderkey
            and l2.l_suppkey <> l1.l_suppkey
    )
    and not exists (
        select
            *
        from
            lineitem l3
        where
            l3.l_orderkey = l1.l_orderkey
            and l3.l_suppkey <> l1.l_suppkey
            and l3.l_receiptdate > l3.l_commitdate
    )
    and s_nationkey = n_nationkey
    and n_name = 'SAUDI ARABIA'
group by
    s_name
order by
    numwait desc,
    s_name
limit 100";

/// Q22, Global Sales Opportunity: I1..I7 = 13, 31, 23, 29, 30, 18, 17.
const Q22: &str = "
select
    cntrycode,
    count(*) as numcust,
    sum(c_acctbal) as totacctbal
from
    (
        select
            substring(c_phone from 1 for 2) as cntrycode,
            c_acctbal
        from
            customer
        where
            substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17')
            and c_acctbal > (
                select
                    avg(c_acctbal)
                from
                    customer
                where
                    c_acctbal > 0.00
                    and substring(c_phone from 1 for 2) in ('13', '31', '23', '29', '30', '18', '17')
            )
            and not exists (
                select
                    *
                from
                    orders
                where
                    o_custkey = c_custkey
            )
    ) as custsale
group by
    cntrycode
order by
    cntrycode";

/// The 22 queries, `QUERIES[n - 1]` being Qn.
pub const QUERIES: [Query; 22] = [
    Query {
        number: 1,
        sql: Q1,
        tables: &["lineitem"],
        order_by: &["l_returnflag", "l_linestatus"],
    },
    Query {
        number: 2,
        sql: Q2,
        tables: &["part", "supplier", "partsupp", "nation", "region"],
        order_by: &["s_acctbal", "n_name", "s_name", "p_partkey"],
    },
    Query {
        number: 3,
        sql: Q3,
        tables: &["customer", "orders", "lineitem"],
        order_by: &["revenue", "o_orderdate"],
    },
    Query {
        number: 4,
        sql: Q4,
        tables: &["orders", "lineitem"],
        order_by: &["o_orderpriority"],
    },
    Query {
        number: 5,
        sql: Q5,
        tables: &[
            "customer", "orders", "lineitem", "supplier", "nation", "region",
        ],
        order_by: &["revenue"],
    },
    Query {
        number: 6,
        sql: Q6,
        tables: &["lineitem"],
        order_by: &[],
    },
    Query {
        number: 7,
        sql: Q7,
        tables: &["supplier", "lineitem", "orders", "customer", "nation"],
        order_by: &["supp_nation", "cust_nation", "l_year"],
    },
    Query {
        number: 8,
        sql: Q8,
        tables: &[
            "part", "supplier", "lineitem", "orders", "customer", "nation", "region",
        ],
        order_by: &["o_year"],
    },
    Query {
        number: 9,
        sql: Q9,
        tables: &[
            "part", "supplier", "lineitem", "partsupp", "orders", "nation",
        ],
        order_by: &["nation", "o_year"],
    },
    Query {
        number: 10,
        sql: Q10,
        tables: &["customer", "orders", "lineitem", "nation"],
        order_by: &["revenue"],
    },
    Query {
        number: 11,
        sql: Q11,
        tables: &["partsupp", "supplier", "nation"],
        order_by: &["value"],
    },
    Query {
        number: 12,
        sql: Q12,
        tables: &["orders", "lineitem"],
        order_by: &["l_shipmode"],
    },
    Query {
        number: 13,
        sql: Q13,
        tables: &["customer", "orders"],
        order_by: &["custdist", "c_count"],
    },
    Query {
        number: 14,
        sql: Q14,
        tables: &["lineitem", "part"],
        order_by: &[],
    },
    Query {
        number: 15,
        sql: Q15,
        tables: &["lineitem", "supplier"],
        order_by: &["s_suppkey"],
    },
    Query {
        number: 16,
        sql: Q16,
        tables: &["partsupp", "part", "supplier"],
        order_by: &["supplier_cnt", "p_brand", "p_type", "p_size"],
    },
    Query {
        number: 17,
        sql: Q17,
        tables: &["lineitem", "part"],
        order_by: &[],
    },
    Query {
        number: 18,
        sql: Q18,
        tables: &["customer", "orders", "lineitem"],
        order_by: &["o_totalprice", "o_orderdate"],
    },
    Query {
        number: 19,
        sql: Q19,
        tables: &["lineitem", "part"],
        order_by: &[],
    },
    Query {
        number: 20,
        sql: Q20,
        tables: &["supplier", "nation", "partsupp", "part", "lineitem"],
        order_by: &["s_name"],
    },
    Query {
        number: 21,
        sql: Q21,
        tables: &["supplier", "lineitem", "orders", "nation"],
        order_by: &["numwait", "s_name"],
    },
    Query {
        number: 22,
        sql: Q22,
        tables: &["customer", "orders"],
        order_by: &["cntrycode"],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The identifiers of `sql` outside string literals.
    fn words(sql: &str) -> Vec<&str> {
        let mut words = Vec::new();
        for (i, part) in sql.split('\'').enumerate() {
            if i % 2 == 0 {
                words.extend(
                    part.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| !w.is_empty()),
                );
            }
        }
        words
    }

    #[test]
    fn numbered_in_order() {
        for (i, q) in QUERIES.iter().enumerate() {
            assert_eq!(usize::from(q.number), i + 1);
        }
    }

    /// Each query's `tables` are exactly the table names it mentions (outside literals).
    #[test]
    fn tables_listed() {
        for q in QUERIES {
            let words = words(q.sql);
            let mut mentioned: Vec<&str> =
                TABLES.into_iter().filter(|t| words.contains(t)).collect();
            let mut listed = q.tables.to_vec();
            mentioned.sort_unstable();
            listed.sort_unstable();
            assert_eq!(mentioned, listed, "Q{}", q.number);
        }
    }

    /// Each `order_by` column is named in the query's text, after its last `order by`.
    #[test]
    fn order_by_listed() {
        for q in QUERIES {
            let tail = q.sql.rsplit_once("order by");
            match tail {
                None => assert!(q.order_by.is_empty(), "Q{}", q.number),
                Some((_, tail)) => {
                    let words = words(tail);
                    let keys: Vec<&str> = words
                        .iter()
                        .copied()
                        .filter(|w| {
                            !matches!(*w, "desc" | "asc" | "limit") && w.parse::<u32>().is_err()
                        })
                        .collect();
                    assert_eq!(keys, q.order_by, "Q{}", q.number);
                }
            }
        }
    }
}
