create table if not exists orders (
    id varchar(36) primary key,
    customer varchar(200) not null,
    amount numeric(12, 2) not null,
    status varchar(20) not null,
    created_at timestamp not null,
    updated_at timestamp not null
);
create index if not exists orders_created_at on orders (created_at);
create index if not exists orders_status on orders (status);
